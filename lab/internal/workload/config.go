package workload

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/snowlab/snowlab/lab/subject"
)

// The lab's defaults: what a zero field of BurstConfig, SaturateConfig and
// SteadyConfig means, and what loadgen's flags start from, so that a
// library caller and a command-line user measure the same thing. The
// repeats are 5 (results committed before 2026-11-30 18:00Z used 3): the
// fewest for which `loadgen compare`'s Mann-Whitney U test can reach alpha
// 0.05 is 4 per side, and 5 lets it reach 0.008.
const (
	DefaultBurstIDs        = 100_000
	DefaultBurstGoroutines = 32
	DefaultBurstRepeats    = 5
	DefaultBurstPause      = 20 * time.Millisecond

	DefaultSaturateDuration = 100 * time.Millisecond
	DefaultSaturateRepeats  = 5
	// DefaultSaturateMaxIDs bounds the IDs kept per repeat for the check.
	DefaultSaturateMaxIDs = 8 << 20
	// DefaultSampleEvery times one call in 64 (see SaturateConfig.SampleEvery).
	DefaultSampleEvery = 64

	DefaultSteadyRate     = 1_000_000.0
	DefaultSteadyDuration = 300 * time.Millisecond

	// DefaultCeilingBudget bounds a burst, and the backlog of a steady
	// run, of a strict subject whose ceiling is far below what the
	// workload asks: at most this long at the ceiling (see
	// BurstConfig.CeilingBudget). At the defaults it cuts only
	// sony/sonyflake's library defaults (25.6k IDs/s): bursts of 12,800
	// IDs instead of 100,000 (3.9 s each) and a steady run of 12,800 calls
	// instead of 300,000 (an 11.7 s backlog), which took 33 s of the
	// suite; every other subject's ceiling is 4.096M IDs/s or more, or
	// none.
	DefaultCeilingBudget = 500 * time.Millisecond
)

// The lab's limits. Every workload keeps all the IDs it issued for the
// correctness check (16 bytes each) and sizes its buffers up front, so an
// absurd count would fail on allocation instead of measuring anything; the
// limits keep a run within a few hundred MiB and an hour.
const (
	MaxBurstIDs     = 10_000_000 // 160 MiB of IDs
	MaxGoroutines   = 10_000
	MaxRepeats      = 1_000
	MaxPause        = 10 * time.Second
	MaxDuration     = 10 * time.Minute // one saturate repeat or one steady run
	MaxSteadyRate   = 1e9
	MaxSteadyCalls  = 20_000_000 // rate × duration; 320 MiB of IDs
	maxSaturateKept = 64 << 20   // SaturateConfig.MaxIDs; 1 GiB of IDs
)

// ErrConfig is wrapped by every error about a workload configuration out
// of range.
var ErrConfig = errors.New("workload: configuration out of range")

func configErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...))
}

// Validate reports the first field of c that is out of range. Zero fields
// take their defaults and are valid.
func (c BurstConfig) Validate() error {
	switch {
	case c.IDs < 0 || c.IDs > MaxBurstIDs:
		return configErr("burst IDs %d: want 1 to %d", c.IDs, MaxBurstIDs)
	case c.Goroutines < 0 || c.Goroutines > MaxGoroutines:
		return configErr("burst goroutines %d: want 1 to %d", c.Goroutines, MaxGoroutines)
	case c.Repeats < 0 || c.Repeats > MaxRepeats:
		return configErr("burst repeats %d: want 1 to %d", c.Repeats, MaxRepeats)
	case c.Pause < 0 || c.Pause > MaxPause:
		return configErr("burst pause %v: want 0 to %v", c.Pause, MaxPause)
	case c.CeilingBudget < 0 || c.CeilingBudget > MaxDuration:
		return configErr("burst ceiling budget %v: want more than 0, at most %v", c.CeilingBudget, MaxDuration)
	}
	return nil
}

// Validate reports the first field of c that is out of range. Zero fields
// take their defaults and are valid.
func (c SaturateConfig) Validate() error {
	for _, g := range c.Goroutines {
		if g < 1 || g > MaxGoroutines {
			return configErr("saturate goroutines %d: want 1 to %d", g, MaxGoroutines)
		}
	}
	switch {
	case c.Duration < 0 || c.Duration > MaxDuration:
		return configErr("saturate duration %v: want more than 0, at most %v", c.Duration, MaxDuration)
	case c.Repeats < 0 || c.Repeats > MaxRepeats:
		return configErr("saturate repeats %d: want 1 to %d", c.Repeats, MaxRepeats)
	case c.MaxIDs < 0 || c.MaxIDs > maxSaturateKept:
		return configErr("saturate IDs kept %d: want 1 to %d", c.MaxIDs, maxSaturateKept)
	case c.SampleEvery < 0:
		return configErr("saturate sample interval %d: want 1 or more", c.SampleEvery)
	}
	return nil
}

// Validate reports the first field of c that is out of range, including a
// rate and duration that schedule no call or more than MaxSteadyCalls.
// Zero fields take their defaults and are valid.
func (c SteadyConfig) Validate() error {
	switch {
	case math.IsNaN(c.Rate) || c.Rate < 0 || c.Rate > MaxSteadyRate:
		return configErr("steady rate %v: want more than 0, at most %g calls/s", c.Rate, MaxSteadyRate)
	case c.Duration < 0 || c.Duration > MaxDuration:
		return configErr("steady duration %v: want more than 0, at most %v", c.Duration, MaxDuration)
	case c.Workers < 0 || c.Workers > MaxGoroutines:
		return configErr("steady workers %d: want 1 to %d", c.Workers, MaxGoroutines)
	case c.CeilingBudget < 0 || c.CeilingBudget > MaxDuration:
		return configErr("steady ceiling budget %v: want more than 0, at most %v", c.CeilingBudget, MaxDuration)
	}
	d := c.withDefaults()
	switch calls := d.Rate * d.Duration.Seconds(); {
	case calls < 1:
		return configErr("steady rate %v over %v schedules no call", d.Rate, d.Duration)
	case calls > MaxSteadyCalls:
		return configErr("steady rate %v over %v schedules %.3g calls: at most %d", d.Rate, d.Duration, calls, MaxSteadyCalls)
	}
	return nil
}

// ceilingBound is how many of n IDs a strict subject s is asked for in a
// workload bounded by budget: at most what its ceiling mints in budget
// (at least one), all n for a subject without a ceiling.
func ceilingBound(s subject.Subject, n int64, budget time.Duration) int64 {
	c := s.Ceiling()
	if !s.Strict || c <= 0 {
		return n
	}
	return min(n, max(int64(c*budget.Seconds()), 1))
}
