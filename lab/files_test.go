package lab_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// TestWriteFiles: a small real run of every workload on one own generator,
// written by lab.WriteFiles as loadgen writes results, reads back the
// same. (It was report's test of the same function; report cannot import
// lab, which now wraps it.)
func TestWriteFiles(t *testing.T) {
	run, err := lab.Suite{
		Subjects:  subject.Own(1)[:1],
		Workloads: lab.Workloads{Burst: true, Saturate: true, Steady: true},
		Burst:     lab.BurstConfig{IDs: 2000, Goroutines: 2, Repeats: 2, Pause: time.Millisecond},
		Saturate:  lab.SaturateConfig{Goroutines: []int{1, 2}, Duration: 5 * time.Millisecond, Repeats: 2},
		Steady:    lab.SteadyConfig{Rate: 100_000, Duration: 10 * time.Millisecond},
		Commit:    "abc1234",
	}.Measure()
	require.NoError(t, err)

	dir := t.TempDir()
	paths, err := lab.WriteFiles(dir, run)
	require.NoError(t, err)
	stem := filepath.Join(dir, resultdir.Stem(run))
	assert.Contains(t, paths, stem+".json")
	assert.Contains(t, paths, stem+".md")
	assert.Contains(t, paths, filepath.Join(stem, "saturate.svg"))
	assert.Contains(t, paths, stem+".html")
	for _, p := range paths {
		_, err := os.Stat(p)
		require.NoError(t, err)
	}
	back, err := result.Read(stem + ".json")
	require.NoError(t, err)
	assert.Equal(t, run.Saturate, back.Saturate)
	assert.Equal(t, run.Host.Load, back.Host.Load)
}
