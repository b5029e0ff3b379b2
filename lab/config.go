package lab

import (
	"time"

	"github.com/snowlab/snowlab/lab/internal/workload"
)

// The workloads' configurations. A zero field takes the lab's default,
// the same value `loadgen run` starts its flag from (`loadgen run -h`
// prints them), so that a Suite built in code and the command measure
// alike. Validate refuses a value out of range with an error wrapping
// ErrConfig, before anything is allocated: every workload keeps all the
// IDs it issued for its check (16 bytes each), so the bounds keep a run
// within a few hundred MiB and an hour.
//
// Their fields are those of the lab's internal workloads one for one: the
// Suite converts them (workload.BurstConfig(c)), so a field added to one
// and not the other stops the build.

// BurstConfig shapes the burst workload: G goroutines released together,
// each asking for its share of IDs (one Next call per ID, and one NextIDs
// call where the subject batches), repeated on a fresh generator each
// time; it measures the makespan and the ticks spanned against the fewest
// the layout allows.
type BurstConfig struct {
	IDs        int           // IDs per burst; 0 is 100,000
	Goroutines int           // 0 is 32 (never more than IDs)
	Repeats    int           // 0 is 5
	Pause      time.Duration // between repeats; 0 is 20ms
	// CeilingBudget bounds one burst of a strict subject: it asks for no
	// more IDs than the subject's ceiling mints in this long (0 is
	// 500ms), so that a generator a hundred times slower than the others
	// measures the same way in a fraction of the time. The result says
	// so (result.BurstResult.RequestedIDs).
	CeilingBudget time.Duration
}

// SaturateConfig shapes the saturate workload: a closed loop for a fixed
// time at each goroutine count of a sweep, measuring IDs/s.
type SaturateConfig struct {
	Goroutines []int         // nil is 1, 2, 4, … up to 2 x GOMAXPROCS
	Duration   time.Duration // per repeat; 0 is 100ms
	Repeats    int           // 0 is 5
	// MaxIDs bounds the IDs kept for the correctness check per repeat; a
	// repeat that fills it ends early (its rate stays honest: IDs over
	// the time actually taken). 0 is 8Mi.
	MaxIDs int
	// SampleEvery times one call in SampleEvery, so that the two clock
	// reads of timing do not halve the throughput being measured. 0 is
	// 64.
	SampleEvery int
}

// SteadyConfig shapes the steady workload: calls scheduled open-loop at a
// fixed rate, their latency measured from when each was due, so that a
// stall shows as the backlog it caused.
type SteadyConfig struct {
	Rate     float64       // calls per second; 0 is 1,000,000
	Duration time.Duration // 0 is 300ms
	Workers  int           // 0 is GOMAXPROCS
	// CeilingBudget bounds the backlog of a strict subject whose ceiling
	// is below Rate: the run schedules no more calls than the ceiling
	// serves in this long (0 is 500ms), by a shorter Duration at the same
	// Rate. Above its ceiling a subject falls behind whatever the length,
	// and its latency grows with it: the figure is of the run's length,
	// which the result records with the one asked for
	// (result.SteadyResult.RequestedDuration).
	CeilingBudget time.Duration
}

// ErrConfig is wrapped by every error about a workload configuration out
// of range.
var ErrConfig = workload.ErrConfig

// Validate reports the first field of c that is out of range.
func (c BurstConfig) Validate() error { return workload.BurstConfig(c).Validate() }

// Validate reports the first field of c that is out of range.
func (c SaturateConfig) Validate() error { return workload.SaturateConfig(c).Validate() }

// Validate reports the first field of c that is out of range, including a
// rate and duration that schedule no call or more than twenty million.
func (c SteadyConfig) Validate() error { return workload.SteadyConfig(c).Validate() }
