package workload

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/internal/mono"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// SaturateConfig shapes the saturate sweep: a closed loop of G goroutines for
// Duration, Repeats times, for each G in Goroutines.
type SaturateConfig struct {
	Goroutines []int         // nil is 1, 2, 4, … up to 2 x GOMAXPROCS
	Duration   time.Duration // per repeat; 0 is DefaultSaturateDuration
	Repeats    int           // 0 is DefaultSaturateRepeats
	// MaxIDs bounds the IDs kept for the correctness check per repeat;
	// a repeat that fills it ends early (its rate stays honest: IDs over
	// the time actually taken). 0 is DefaultSaturateMaxIDs.
	MaxIDs int
	// SampleEvery times one call in SampleEvery, so that the two clock
	// reads of timing do not halve the throughput being measured. 0 is
	// DefaultSampleEvery.
	SampleEvery int
}

func (c SaturateConfig) withDefaults() SaturateConfig {
	if len(c.Goroutines) == 0 {
		c.Goroutines = Sweep(2 * runtime.GOMAXPROCS(0))
	}
	c.Duration = cmp.Or(c.Duration, DefaultSaturateDuration)
	c.Repeats = cmp.Or(c.Repeats, DefaultSaturateRepeats)
	c.MaxIDs = cmp.Or(c.MaxIDs, DefaultSaturateMaxIDs)
	c.SampleEvery = cmp.Or(c.SampleEvery, DefaultSampleEvery)
	return c
}

// Sweep is the goroutine counts the sweep runs: Goroutines, or its
// default when nil.
func (c SaturateConfig) Sweep() []int { return c.withDefaults().Goroutines }

// Sweep returns 1, 2, 4, … up to and including top (top itself is added
// when it is not a power of two).
func Sweep(top int) []int {
	var g []int
	for n := 1; n < top; n *= 2 {
		g = append(g, n)
	}
	return append(g, max(top, 1))
}

// Saturate runs s closed-loop with g goroutines and reports IDs/s per
// repeat, sampled per-call latency, contention and the check.
func Saturate(s subject.Subject, g int, cfg SaturateConfig) (result.SaturateResult, error) {
	if err := cfg.Validate(); err != nil {
		return result.SaturateResult{Subject: s.Name, Goroutines: g}, err
	}
	if g < 1 || g > MaxGoroutines {
		return result.SaturateResult{Subject: s.Name, Goroutines: g}, configErr("saturate goroutines %d: want 1 to %d", g, MaxGoroutines)
	}
	cfg = cfg.withDefaults()
	res := result.SaturateResult{Subject: s.Name, Goroutines: g, Duration: cfg.Duration}
	perG := max(cfg.MaxIDs/g, 1)
	streams := make([][]subject.ID, g)
	for i := range streams {
		streams[i] = make([]subject.ID, perG)
	}
	recs := make([]*Recorder, g)
	for i := range recs {
		recs[i] = NewRecorder()
	}
	var issued int
	meter := startContention()
	for r := 0; r < cfg.Repeats; r++ {
		m, err := s.New()
		if err != nil {
			return res, fmt.Errorf("%s: %w", s.Name, err)
		}
		var stop atomic.Bool
		var timer *time.Timer
		counts := make([]int, g)
		errs := make([]error, g)
		ends := make([]int64, g)
		t0 := fanOut(g, func() { timer = time.AfterFunc(cfg.Duration, func() { stop.Store(true) }) }, func(i int, _ int64) {
			ids, rec, every := streams[i], recs[i], cfg.SampleEvery
			k := 0
			for ; k < len(ids) && !stop.Load(); k++ {
				var id subject.ID
				var err error
				if k%every == 0 {
					t := mono.Now()
					id, err = m.Next()
					rec.Record(mono.Now() - t)
				} else {
					id, err = m.Next()
				}
				if err != nil {
					errs[i] = err
					break
				}
				ids[k] = id
			}
			ends[i] = mono.Now()
			counts[i] = k
		})
		timer.Stop()
		wall := time.Now()
		elapsed := slices.Max(ends) - t0
		n := 0
		for i := range streams {
			streams[i] = streams[i][:counts[i]]
			n += counts[i]
		}
		nerr, first := failures(errs)
		res.Samples = append(res.Samples, float64(n)/(float64(elapsed)/1e9))
		if lead := newestTime(streams, s).Sub(wall).Nanoseconds(); r == 0 || lead > res.LeadNs {
			res.LeadNs = lead
		}
		meter.add(subject.Stats(m))
		issued += n
		res.Check = mergeChecks(res.Check, checker{s, m}.check(streams, nerr, first))
		for i := range streams {
			streams[i] = streams[i][:perG]
		}
	}
	res.Contention = meter.finish(issued)
	res.Latency = Merge(recs)
	res.IDsPerSec = stats.Median(res.Samples)
	if c := s.Ceiling(); c > 0 {
		res.CeilingPct = 100 * res.IDsPerSec / c
	}
	return res, nil
}

// newestTime is the newest embedded time among the IDs: the last of each
// stream where the subject promises increasing IDs per caller, every ID
// otherwise.
func newestTime(streams [][]subject.ID, s subject.Subject) time.Time {
	var newest time.Time
	for _, ids := range streams {
		scan := ids
		if s.Order == subject.OrderCaller && len(ids) > 0 {
			scan = ids[len(ids)-1:]
		}
		for _, id := range scan {
			if t, _ := s.Decode(id); t.After(newest) {
				newest = t
			}
		}
	}
	return newest
}
