package workload

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/lab/internal/limit"

	"github.com/snowlab/snowlab/lab/result"
)

// unfairDeviationPct is the deviation of the goroutines' counts
// (result.Fairness.DeviationPct) above which a run is flagged unfair.
// Measured on this repository's 2-core VM (loadgen run -subjects
// mutexgen,atomicgen,shardedgen -sweep 2,4,8, 2026-12-01, with other
// processes taking 79% to 84% of the CPU time), snowlab's eight
// generators read, where judged: saturate at G=2 a median deviation of
// 1.6% to 30% (mutexgen/strict 29%, atomicgen/strict 9.0%,
// shardedgen/node-per-shard/strict 2.0%), steady's two workers 0% to 54%
// (atomicgen/monotonic, its workers served 0.46× and 1.54× a fair share:
// the host, not the generator, which has no lock to hand over). 75% is
// 20 points above every fair figure measured; a goroutine starved
// outright is caught by starvedShare whatever the deviation.
const unfairDeviationPct = 75

// starvedShare is the share of its fair share (1/G) below which one
// goroutine counts as starved and the run is flagged unfair whatever the
// deviation: one goroutine starved among many moves the deviation little
// (a goroutine served nothing among G-1 served alike is a deviation of
// 1/sqrt(G-1): 38% at G=8, 18% at G=32). The fair subjects' least share
// measured where judged was 0.46 of a fair share (the steady run above);
// a quarter is below it with room, and above what a goroutine let
// through once for every 32 calls of three others gets (4/33).
const starvedShare = 0.25

// window counts each goroutine's calls over the stretch of time all of
// them were calling: from the moment the last one made its first call to
// the moment the first one stopped. A goroutine that started late (more
// goroutines than cores: it waited for a P) or went on alone after the
// others stopped (its buffer not yet full) adds no calls that no one
// competed for. A window that closed before it opened (one goroutine done
// before another began, as in a short burst of many goroutines on few
// cores) measured nothing. Each goroutine writes only its own counts,
// read once every goroutine has returned.
type window struct {
	g               int32
	started         atomic.Int32
	open, closed    atomic.Bool
	valid           bool    // the window was open when it closed; set by the first to leave
	openAt, closeAt int64   // monotonic ns: set by the last to start and the first to leave
	at0, at1        []int64 // each goroutine's calls made at the opening and at the close
	phases          []uint8 // each goroutine's progress through see, its own
}

// The phases of a goroutine's watch of the window.
const (
	phaseNew     uint8 = iota // has not called yet
	phaseStarted              // called; waits for the window to open
	phaseIn                   // saw it open; waits for it to close
	phaseDone                 // saw it close: stops watching
)

func newWindow(g int) *window {
	w := &window{g: int32(g), at0: make([]int64, g), at1: make([]int64, g), phases: make([]uint8, g)}
	w.reset()
	return w
}

// reset readies the window for another repeat.
func (w *window) reset() {
	w.started.Store(0)
	w.open.Store(false)
	w.closed.Store(false)
	w.valid = false
	clear(w.at0)
	clear(w.at1)
	clear(w.phases)
}

// watching reports whether goroutine i must still call see.
func (w *window) watching(i int) bool { return w.phases[i] != phaseDone }

// see is goroutine i's look at the window before its call number k (k
// calls made): it announces its first call, and records k when it first
// sees the window open and when it first sees it closed.
func (w *window) see(i, k int) {
	switch w.phases[i] {
	case phaseNew:
		w.phases[i] = phaseStarted
		if w.started.Add(1) == w.g {
			w.openAt = limit.Now()
			w.open.Store(true)
		}
		fallthrough
	case phaseStarted:
		if !w.open.Load() {
			return
		}
		w.at0[i], w.phases[i] = int64(k), phaseIn
		fallthrough
	case phaseIn:
		if w.closed.Load() {
			w.at1[i], w.phases[i] = int64(k), phaseDone
		}
	}
}

// leave is goroutine i stopping after k calls: the first to stop closes
// the window; a goroutine that had not seen it open or close counts its
// calls up to here.
func (w *window) leave(i, k int) {
	if w.closed.CompareAndSwap(false, true) {
		w.closeAt = limit.Now()
		w.valid = w.open.Load()
	}
	if w.phases[i] < phaseIn {
		w.at0[i] = int64(k)
	}
	if w.phases[i] < phaseDone {
		w.at1[i], w.phases[i] = int64(k), phaseDone
	}
}

// counts is each goroutine's calls in the window and how long it was
// open, nil when it never opened.
func (w *window) counts() ([]int64, time.Duration) {
	if !w.valid {
		return nil, 0
	}
	out := make([]int64, len(w.at0))
	for i := range out {
		out[i] = w.at1[i] - w.at0[i]
	}
	return out, time.Duration(w.closeAt - w.openAt)
}

// minFairWindow is the shortest stretch of calling together whose
// fairness the lab judges: the Go scheduler's time slice (10 ms, sysmon's
// forced preemption). In a shorter one the goroutines' shares are whoever
// the host happened to run: on this repository's 2-core VM under load a
// burst of two goroutines of a lock-free generator (atomicgen/monotonic,
// 10,000 IDs each, windows well under a millisecond) read 100% with one
// goroutine served nothing, where the same generator's 100 ms saturate
// repeats read 29%.
const minFairWindow = 10 * time.Millisecond

// fairnessSample is one repeat's counts summarised.
type fairnessSample struct {
	shares    []float64
	deviation float64 // percent
	window    time.Duration
}

// sampleOf summarises counts, made over window; ok is false for fewer
// than two goroutines or no calls at all.
func sampleOf(counts []int64, window time.Duration) (fairnessSample, bool) {
	if len(counts) < 2 {
		return fairnessSample{}, false
	}
	var sum float64
	for _, c := range counts {
		sum += float64(max(c, 0))
	}
	if sum == 0 {
		return fairnessSample{}, false
	}
	mean := sum / float64(len(counts))
	var ss float64
	shares := make([]float64, len(counts))
	for i, c := range counts {
		d := float64(max(c, 0)) - mean
		ss += d * d
		shares[i] = float64(max(c, 0)) / sum
	}
	return fairnessSample{shares, 100 * math.Sqrt(ss/float64(len(counts))) / mean, window}, true
}

// fairnessOf is the result over a run's repeats: the median deviation,
// the shares of the repeat whose deviation is that median (the lower of
// the two middle ones for an even count), and the flag. nil when no
// repeat had two goroutines served.
//
// A run of more goroutines than GOMAXPROCS is recorded but not judged
// (OverCPUs): the scheduler's time slices, not the subject, then decide
// who is served, and on this repository's 2-core VM fair subjects read up
// to 225% there; nor is one whose goroutines called together for less
// than minFairWindow (ShortWindow).
func fairnessOf(samples []fairnessSample) *result.Fairness {
	if len(samples) == 0 {
		return nil
	}
	sorted := slices.Clone(samples)
	slices.SortStableFunc(sorted, func(a, b fairnessSample) int { return cmp.Compare(a.deviation, b.deviation) })
	med := sorted[(len(sorted)-1)/2]
	f := &result.Fairness{Shares: med.shares, MinShare: slices.Min(med.shares), MaxShare: slices.Max(med.shares),
		DeviationPct: med.deviation, ThresholdPct: unfairDeviationPct}
	for _, s := range samples {
		f.DeviationSamples = append(f.DeviationSamples, s.deviation)
	}
	f.MinShareFloor = starvedShare
	f.OverCPUs = len(f.Shares) > runtime.GOMAXPROCS(0)
	f.Window = med.window
	f.ShortWindow = med.window < minFairWindow
	f.Unfair = f.Judged() && (f.DeviationPct > unfairDeviationPct || f.MinShare*float64(len(f.Shares)) < starvedShare)
	return f
}
