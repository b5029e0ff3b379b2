package workload

import (
	"cmp"
	"errors"
	"fmt"
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

// outOfRange is the error for field what at v outside 0 to hi, NaN
// included, nil inside; want says the range (hi fills its verb).
func outOfRange[T int | time.Duration | float64](what string, v, hi T, want string) error {
	if !(v >= 0 && v <= hi) {
		return configErr("%s %v: want "+want, what, v, hi)
	}
	return nil
}

// Validate reports the first field of c that is out of range. Zero fields
// take their defaults and are valid.
func (c BurstConfig) Validate() error {
	return cmp.Or(
		outOfRange("burst IDs", c.IDs, MaxBurstIDs, "1 to %d"),
		outOfRange("burst goroutines", c.Goroutines, MaxGoroutines, "1 to %d"),
		outOfRange("burst repeats", c.Repeats, MaxRepeats, "1 to %d"),
		outOfRange("burst pause", c.Pause, MaxPause, "0 to %v"),
		outOfRange("burst ceiling budget", c.CeilingBudget, MaxDuration, "more than 0, at most %v"),
	)
}

// Validate reports the first field of c that is out of range. Zero fields
// take their defaults and are valid.
func (c SaturateConfig) Validate() error {
	for _, g := range c.Goroutines {
		if g < 1 || g > MaxGoroutines {
			return configErr("saturate goroutines %d: want 1 to %d", g, MaxGoroutines)
		}
	}
	if c.SampleEvery < 0 {
		return configErr("saturate sample interval %d: want 1 or more", c.SampleEvery)
	}
	return cmp.Or(
		outOfRange("saturate duration", c.Duration, MaxDuration, "more than 0, at most %v"),
		outOfRange("saturate repeats", c.Repeats, MaxRepeats, "1 to %d"),
		outOfRange("saturate IDs kept", c.MaxIDs, maxSaturateKept, "1 to %d"),
	)
}

// Validate reports the first field of c that is out of range, including a
// rate and duration that schedule no call or more than MaxSteadyCalls.
// Zero fields take their defaults and are valid.
func (c SteadyConfig) Validate() error {
	if err := cmp.Or(
		outOfRange("steady rate", c.Rate, MaxSteadyRate, "more than 0, at most %g calls/s"),
		outOfRange("steady duration", c.Duration, MaxDuration, "more than 0, at most %v"),
		outOfRange("steady workers", c.Workers, MaxGoroutines, "1 to %d"),
		outOfRange("steady ceiling budget", c.CeilingBudget, MaxDuration, "more than 0, at most %v"),
	); err != nil {
		return err
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
