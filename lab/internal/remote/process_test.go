package remote_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestStartReplica: a real replica is ready when StartReplica returns;
// the cleanup stops it and fails the test unless it drains to exit 0.
func TestStartReplica(t *testing.T) {
	bin, why := replicaBinary()
	if bin == "" {
		if os.Getenv("SNOWLAB_REQUIRE_SNOWIDD") == "1" {
			t.Fatalf("SNOWLAB_REQUIRE_SNOWIDD=1 but %s", why)
		}
		t.Skipf("no snowidd replica: %s (make snowidd builds bin/snowidd; SNOWLAB_REQUIRE_SNOWIDD=1 makes this fail)", why)
	}
	r, err := remote.StartReplica(bin, remote.ReplicaConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Stop()) })
	base := r.URL
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

// replicaBinary is the snowidd binary TestStartReplica starts: $SNOWIDD_BIN
// when set, else bin/snowidd beside the repository's go.work (where make
// snowidd writes it) when it is there. With none it returns "" and why;
// the test then skips, unless SNOWLAB_REQUIRE_SNOWIDD=1, which .ci/run
// sets after building bin/snowidd, so that in CI a missing replica fails.
func replicaBinary() (path, why string) {
	if bin := os.Getenv("SNOWIDD_BIN"); bin != "" {
		if st, err := os.Stat(bin); err != nil || st.IsDir() {
			return "", "SNOWIDD_BIN=" + bin + " is not a file"
		}
		return bin, ""
	}
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", "SNOWIDD_BIN is not set and go env GOWORK failed: " + err.Error()
	}
	gowork := strings.TrimSpace(string(out))
	if gowork == "" || gowork == "off" {
		return "", "SNOWIDD_BIN is not set and the test runs outside the repository's workspace (go.work)"
	}
	bin := filepath.Join(filepath.Dir(gowork), "bin", "snowidd")
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		return "", "SNOWIDD_BIN is not set and there is no " + bin
	}
	return bin, ""
}
