package remote_test

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/remote"
)

// TestStartReplicaRefuses: a binary that is not there, or that exits before it
// is ready, is an error naming it, with what it wrote.
func TestStartReplicaRefuses(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-snowidd")
	_, err := remote.StartReplica(missing, remote.ReplicaConfig{})
	assert.ErrorContains(t, err, missing)
	_, err = remote.StartReplica(missing, remote.ReplicaConfig{Procs: -1})
	assert.ErrorContains(t, err, "GOMAXPROCS -1")
	_, err = remote.StartReplica(missing, remote.ReplicaConfig{Shards: -2})
	assert.ErrorContains(t, err, "shards -2")
	if runtime.GOOS == "windows" {
		t.Skip("the failing stand-in is a shell script")
	}
	failing := filepath.Join(t.TempDir(), "snowidd")
	require.NoError(t, os.WriteFile(failing, []byte("#!/bin/sh\necho \"lease static:1: refused\" >&2\nexit 3\n"), 0o755))
	_, err = remote.StartReplica(failing, remote.ReplicaConfig{Procs: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited before it was ready")
	assert.Contains(t, err.Error(), "exit status 3")
	assert.Contains(t, err.Error(), "lease static:1: refused")
}

// TestStartReplica: a real replica is ready when StartReplica returns; fixture
// stops it and fails the test unless it drains to exit 0.
func TestStartReplica(t *testing.T) {
	base := fixture.StartReplica(t)
	resp, err := http.Get(base + "/readyz")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestCheckBinary: a path that is no file is refused, naming it and
// saying how to build one.
func TestCheckBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "snowidd")
	require.NoError(t, os.WriteFile(bin, nil, 0o755))
	assert.NoError(t, remote.CheckBinary(bin))
	for _, bad := range []string{dir, filepath.Join(dir, "missing")} {
		assert.ErrorContains(t, remote.CheckBinary(bad), bad+": no snowidd binary there (make snowidd builds it", bad)
	}
}
