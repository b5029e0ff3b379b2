package result

import "time"

// Fairness is how evenly a run served its goroutines: each one's share of
// the calls served while all of them were calling (the window ends when
// the first one stops: in a burst the first to finish its part, in
// saturate the first to see the stop or fill its buffer), in the manner
// of concurrencykit's per-thread counts and their deviation. A CAS loop
// can starve the goroutines that keep losing the race where a mutex
// serves them in turn; the throughput alone never shows it.
type Fairness struct {
	// Shares is each goroutine's fraction of the calls served in the
	// window (they sum to 1; a fair share is 1/len(Shares)), from the
	// repeat whose deviation is the median of DeviationSamples.
	Shares []float64 `json:"shares"`
	// MinShare and MaxShare are the least and the most of Shares.
	MinShare float64 `json:"min_share"`
	MaxShare float64 `json:"max_share"`
	// DeviationPct is the coefficient of variation of the goroutines'
	// counts (population standard deviation over the mean), in percent:
	// 0 when every goroutine was served alike. It is the median of the
	// repeats' (DeviationSamples).
	DeviationPct     float64   `json:"deviation_pct"`
	DeviationSamples []float64 `json:"deviation_samples,omitempty"`
	// Unfair flags a deviation above the lab's threshold (ThresholdPct)
	// or a goroutine served less than MinShareFloor of a fair share
	// (starved): some goroutines were served far less than others. The
	// thresholds are the lab's (lab/internal/workload), recorded with
	// the figures they judged.
	// OverCPUs marks a run of more goroutines than GOMAXPROCS, which is
	// recorded but not judged: the scheduler's time slices, not the
	// subject, then decide much of who is served.
	OverCPUs bool `json:"over_cpus,omitempty"`
	// Window is how long the goroutines called together in the repeat
	// Shares come from (a steady run: its length); ShortWindow marks one
	// under the scheduler's time slice, recorded but not judged: in so
	// short a stretch the shares are whoever the host happened to run.
	Window        time.Duration `json:"window_ns,omitempty"`
	ShortWindow   bool          `json:"short_window,omitempty"`
	Unfair        bool          `json:"unfair,omitempty"`
	ThresholdPct  float64       `json:"threshold_pct,omitempty"`
	MinShareFloor float64       `json:"min_share_floor,omitempty"`
}

// Measured reports whether f holds a measurement (two goroutines or more).
func (f *Fairness) Measured() bool { return f != nil && len(f.Shares) > 1 }

// Judged reports whether the lab judged f: measured, with no more
// goroutines than CPUs, over a window long enough.
func (f *Fairness) Judged() bool { return f.Measured() && !f.OverCPUs && !f.ShortWindow }
