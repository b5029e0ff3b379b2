package lab

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/subject"
)

// TestSuiteNamesFailures: a generator's duplicates do not stop the suite;
// they are named among the run's failures.
func TestSuiteNamesFailures(t *testing.T) {
	s := fixture.Duplicating()
	run, err := Suite{Subjects: []subject.Subject{s}, Workloads: Workloads{Burst: true},
		Burst: BurstConfig{IDs: 500, Goroutines: 2, Repeats: 1}}.Measure()
	require.NoError(t, err)
	require.Len(t, run.Failures, 1)
	assert.Contains(t, run.Failures[0], "broken (burst via NextID)")
	assert.Contains(t, run.Failures[0], "duplicate")
}

// TestSuiteRefusesOutOfRange: the suite validates every selected workload
// before it measures anything.
func TestSuiteRefusesOutOfRange(t *testing.T) {
	_, err := Suite{Subjects: subject.Own(1)[:1], Workloads: Workloads{Steady: true},
		Steady: SteadyConfig{Duration: -time.Second}}.Measure()
	require.ErrorIs(t, err, ErrConfig)
	assert.ErrorContains(t, err, "-1s")
}

// TestSuiteMeasures: a small real run of every workload on one own
// generator records every workload, the host's load and no events.
func TestSuiteMeasures(t *testing.T) {
	suite := Suite{
		Subjects:  subject.Own(1)[:1],
		Workloads: Workloads{Burst: true, Saturate: true, Steady: true},
		Burst:     BurstConfig{IDs: 2000, Goroutines: 2, Repeats: 2, Pause: time.Millisecond},
		Saturate:  SaturateConfig{Goroutines: []int{1, 2}, Duration: 5 * time.Millisecond, Repeats: 2},
		Steady:    SteadyConfig{Rate: 100_000, Duration: 10 * time.Millisecond},
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

}

// TestSuiteCutsASlowStrictSubject: a strict subject whose ceiling is far
// below what the workloads ask is asked for what it serves in the ceiling
// budget, and the run says so in its note and in Cuts; a fast one is not
// cut.
func TestSuiteCutsASlowStrictSubject(t *testing.T) {
	slow := counterSubject("slow/strict", 10) // 10 per 1 ms tick: 10k IDs/s
	fast := counterSubject("fast/strict", 1<<20)
	suite := Suite{
		Subjects:  []subject.Subject{slow, fast},
		Workloads: Workloads{Burst: true, Steady: true},
		Burst:     BurstConfig{IDs: 20_000, Goroutines: 4, Repeats: 1, CeilingBudget: 100 * time.Millisecond},
		Steady:    SteadyConfig{Rate: 1e6, Duration: 20 * time.Millisecond, Workers: 2, CeilingBudget: 100 * time.Millisecond},
	}
	run, err := suite.Measure()
	require.NoError(t, err)
	require.Len(t, run.Burst, 2)
	require.Len(t, run.Steady, 2)

	// 10k IDs/s × 100 ms.
	assert.Equal(t, 1000, run.Burst[0].IDs)
	assert.Equal(t, 20_000, run.Burst[0].RequestedIDs)
	assert.Equal(t, 1000, run.Burst[0].Check.IDs, "every ID asked for was checked")
	assert.Equal(t, 1000*time.Microsecond, run.Steady[0].Duration, "1,000 calls at 1M/s")
	assert.Equal(t, 20*time.Millisecond, run.Steady[0].RequestedDuration)
	assert.Equal(t, 1000, run.Steady[0].Check.IDs)

	assert.Equal(t, 20_000, run.Burst[1].IDs)
	assert.Zero(t, run.Burst[1].RequestedIDs)
	assert.Equal(t, 20*time.Millisecond, run.Steady[1].Duration)
	assert.Zero(t, run.Steady[1].RequestedDuration)

	want := "cut to 100ms at its ceiling of 10.0k/s (loadgen -ceiling-budget): bursts of 1,000 IDs, not 20,000; " +
		"a steady schedule of 1ms at 1.00M/s (1,000 calls), not 20ms"
	assert.Equal(t, "a counter; "+want, run.Subjects[0].Note)
	assert.Equal(t, "a counter", run.Subjects[1].Note)
	assert.Equal(t, []string{"slow/strict: " + want}, Cuts(run))
}

// counterSubject is a strict subject of perTick IDs per 1 ms tick whose
// IDs count up, each decoding to a tick of its own: the checks pass
// however fast it runs.
func counterSubject(name string, perTick int) subject.Subject {
	return subject.Subject{
		Name: name, Strict: true, Order: subject.OrderNone, Nodes: 1, PerTick: perTick, Tick: time.Millisecond, Note: "a counter",
		Decode: func(id subject.ID) (time.Time, int) { return time.UnixMilli(int64(id.Lo)), 0 },
		New: func() (subject.Minter, error) {
			var n atomic.Uint64
			return subject.Func(name, func() (uint64, error) { return n.Add(1), nil }, nil).New()
		},
	}
}
