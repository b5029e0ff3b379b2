package lab

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/lab/workload"
)

// TestSuiteNamesFailures: a generator's duplicates do not stop the suite;
// they are named among the run's failures.
func TestSuiteNamesFailures(t *testing.T) {
	s := fixture.Duplicating()
	run, err := Suite{Subjects: []subject.Subject{s}, Workloads: Workloads{Burst: true},
		Burst: workload.BurstConfig{IDs: 500, Goroutines: 2, Repeats: 1}}.Measure()
	require.NoError(t, err)
	require.Len(t, run.Failures, 1)
	assert.Contains(t, run.Failures[0], "broken (burst via NextID)")
	assert.Contains(t, run.Failures[0], "duplicate")
}

// TestSuiteRefusesOutOfRange: the suite validates every selected workload
// before it measures anything.
func TestSuiteRefusesOutOfRange(t *testing.T) {
	_, err := Suite{Subjects: subject.Own(1)[:1], Workloads: Workloads{Steady: true},
		Steady: workload.SteadyConfig{Duration: -time.Second}}.Measure()
	require.ErrorIs(t, err, workload.ErrConfig)
	assert.ErrorContains(t, err, "-1s")
}

// TestSuiteWritesFiles: a small real run of every workload on one own
// generator, written as the lab writes results, reads back the same.
func TestSuiteWritesFiles(t *testing.T) {
	suite := Suite{
		Subjects:  subject.Own(1)[:1],
		Workloads: Workloads{Burst: true, Saturate: true, Steady: true},
		Burst:     workload.BurstConfig{IDs: 2000, Goroutines: 2, Repeats: 2, Pause: time.Millisecond},
		Saturate:  workload.SaturateConfig{Goroutines: []int{1, 2}, Duration: 5 * time.Millisecond, Repeats: 2},
		Steady:    workload.SteadyConfig{Rate: 100_000, Duration: 10 * time.Millisecond},
		Commit:    "abc1234",
	}
	steps := 0
	suite.Progress = func(step, of int, what string) { steps++ }
	run, err := suite.Measure()
	require.NoError(t, err)
	assert.Equal(t, suite.Steps(), steps)
	assert.Empty(t, run.Failures)
	assert.Len(t, run.Burst, 2, "NextID and NextIDs")
	assert.Len(t, run.Saturate, 2)
	assert.Len(t, run.Steady, 1)
	assert.Empty(t, run.Host.PMU, "no event counting asked for")
	require.NotNil(t, run.Host.Load, "the load over the run, or why it is unknown")

	dir := t.TempDir()
	paths, err := WriteFiles(dir, run)
	require.NoError(t, err)
	stem := filepath.Join(dir, run.Stem())
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
