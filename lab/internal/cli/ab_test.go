package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRunner is lab/internal/ab's stand-in runner (a shell script
// speaking lab/runner's protocol) with IDs costing cost ns each.
func fakeRunner(t *testing.T, name string, cost int) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "ab", "testdata", "fakerunner.sh"))
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(fmt.Sprintf("#!/bin/sh\nFAKE_COST=%d exec %s \"$@\"\n", cost, script)), 0o755))
	return p
}

// TestABBinaries: loadgen ab on two runner binaries exits 0 when they
// cost the same and 1 when head is dearer, says there is no self-check
// without planted builds, and -json is one object with pass.
func TestABBinaries(t *testing.T) {
	base := fakeRunner(t, "base", 100)
	args := []string{"ab", "-q", "-rounds", "12", "-slice", "1ms", "-warmup", "0s"}
	code, out, errs := runArgs(append(args, base, fakeRunner(t, "same", 100))...)
	assert.Equal(t, exitOK, code, "%s\n%s", out, errs)
	assert.Contains(t, out, "gate: PASS")
	assert.Contains(t, errs, "no self-check")
	code, out, errs = runArgs(append(args, "-json", base, fakeRunner(t, "slow", 125))...)
	assert.Equal(t, exitFailure, code, "%s\n%s", out, errs)
	var got struct {
		Pass bool `json:"pass"`
		Rows []struct {
			Decision string `json:"decision"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.False(t, got.Pass)
	require.NotEmpty(t, got.Rows)
	assert.Equal(t, "DIFFERENT", got.Rows[0].Decision)
}
