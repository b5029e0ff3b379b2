package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// gateRun writes a run whose atomicgen/monotonic costs cost times its
// limit per ID at G=1 and G=2, six repeats with a small spread.
func gateRun(t *testing.T, dir, name string, cost float64) string {
	t.Helper()
	r := &result.Run{Schema: result.SchemaVersion, Commit: "abc1234", Subjects: []result.SubjectInfo{
		{Name: "atomicgen/monotonic", Limit: "limit/clock+cas"}, {Name: "limit/clock+cas", Physical: true}}}
	for _, g := range []int{1, 2} {
		var lim, gen []float64
		for _, s := range []float64{1, 1.02, 0.98, 1.01, 0.99, 1.03} {
			lim, gen = append(lim, 1e7*s), append(gen, 1e7/cost/s)
		}
		r.Saturate = append(r.Saturate,
			result.SaturateResult{Subject: "limit/clock+cas", Goroutines: g, Samples: lim, CPUSamples: lim, IDsPerSec: 1e7},
			result.SaturateResult{Subject: "atomicgen/monotonic", Goroutines: g, Samples: gen, CPUSamples: gen, IDsPerSec: 1e7 / cost})
	}
	path := filepath.Join(dir, name)
	require.NoError(t, resultdir.WriteJSON(path, r))
	return path
}

func TestGateCommand(t *testing.T) {
	dir := t.TempDir()
	base, same, slow := gateRun(t, dir, "base.json", 1.1), gateRun(t, dir, "same.json", 1.12), gateRun(t, dir, "slow.json", 2.2)
	code, out, errs := runArgs("gate", "-baseline", base, same)
	assert.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "SAME")
	assert.Contains(t, out, "@G=2")
	code, out, errs = runArgs("gate", "-baseline", base, slow)
	assert.Equal(t, exitFailure, code, out)
	assert.Contains(t, out, "DIFFERENT: worse, FAIL")
	assert.Contains(t, errs, "DIFFERENT and worse")
	for _, args := range [][]string{
		{"gate", "-baseline", base},
		{"gate", "-baseline", filepath.Join(dir, "none.json"), same},
		{"gate", "-baseline", base, "-min-effect", "2", same},
		{"gate", "-baseline", base, filepath.Join(dir, "none.json")},
	} {
		code, _, errs := runArgs(args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, errs)
	}
}
