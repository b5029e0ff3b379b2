package contention

import (
	"context"
	"fmt"
	"time"

	"github.com/snowlab/snowlab/lab/internal/hog"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// The conditions of the oversubscription run, each at a goroutine count:
// as many goroutines as Ps (the suite's top-but-one point), Factor times
// that on an otherwise idle host, and the same beside the hog.
const (
	condFit     = "G=P"
	condOver    = "G=kP"
	condOverHog = "G=kP+hog"
)

// oversubPoint is one subject under one condition, over the repeats.
type oversubPoint struct {
	Subject    string  `json:"subject"`
	Condition  string  `json:"condition"`
	Goroutines int     `json:"goroutines"`
	Hog        bool    `json:"hog"`
	IDsPerSec  float64 `json:"ids_per_sec"` // median of the repeats
	// Repeats are each repeat's IDs/s.
	Repeats []float64      `json:"repeats_ids_per_sec"`
	Latency result.Latency `json:"latency"` // sampled, one call in 64, all repeats
	// Shares are the goroutines' shares over all repeats; WorstMin is
	// the least Min of any one repeat.
	Shares   goroutineShares `json:"shares"`
	WorstMin float64         `json:"worst_min_share"`
	Check    result.Check    `json:"check"`
}

// oversub runs every subject under the three conditions, repeats
// interleaved round by round within each phase; the hog runs through
// the last phase only, started once and stopped at its end (or when ctx
// ends).
func oversub(ctx context.Context, o options, subs []subject.Subject, progress func(string)) ([]oversubPoint, hogInfo, error) {
	p := o.Procs
	var pts []*oversubAcc
	for _, s := range subs {
		for _, c := range []struct {
			name string
			g    int
			hog  bool
		}{{condFit, p, false}, {condOver, o.Factor * p, false}, {condOverHog, o.Factor * p, true}} {
			pts = append(pts, &oversubAcc{s: s, pt: oversubPoint{Subject: s.Name, Condition: c.name, Goroutines: c.g, Hog: c.hog}})
		}
	}
	info := hogInfo{Threads: o.HogThreads}
	for _, withHog := range []bool{false, true} {
		var h *hog.Hog
		if withHog {
			phase := time.Duration(o.Repeats*len(subs)) * (o.Duration + 50*time.Millisecond)
			info.For = phase + 30*time.Second // its bound: the phase, and a margin for the checks
			var err error
			if h, err = hog.Start(ctx, hog.Config{Threads: o.HogThreads, Max: min(info.For, hog.MaxFor), Command: o.HogCommand}); err != nil {
				return nil, info, err
			}
		}
		err := runPhase(ctx, o, pts, withHog, progress)
		if h != nil {
			info.CPUSeconds = h.Stop().Seconds()
		}
		if err != nil {
			return nil, info, err
		}
	}
	out := make([]oversubPoint, len(pts))
	for i, a := range pts {
		out[i] = a.finish()
	}
	return out, info, nil
}

// runPhase runs the repeats of the points with or without the hog.
func runPhase(ctx context.Context, o options, pts []*oversubAcc, withHog bool, progress func(string)) error {
	for r := range o.Repeats {
		for _, a := range pts {
			if a.pt.Hog != withHog {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if progress != nil {
				progress(fmt.Sprintf("oversubscription: %s %s (G=%d) repeat %d/%d", a.s.Name, a.pt.Condition, a.pt.Goroutines, r+1, o.Repeats))
			}
			m, err := a.s.New()
			if err != nil {
				return fmt.Errorf("%s: %w", a.s.Name, err)
			}
			a.add(closedLoop(a.s, m, a.pt.Goroutines, o.Duration))
		}
	}
	return nil
}

// oversubAcc gathers a point's repeats.
type oversubAcc struct {
	s      subject.Subject
	pt     oversubPoint
	counts []int64
	recs   []*workload.Recorder
	worst  float64
	n      int
}

func (a *oversubAcc) add(t tally) {
	var total int64
	for i, n := range t.counts {
		total += n
		if a.counts == nil {
			a.counts = make([]int64, len(t.counts))
		}
		a.counts[i] += n
	}
	a.pt.Repeats = append(a.pt.Repeats, float64(total)/t.elapsed.Seconds())
	a.recs = append(a.recs, t.recs...)
	sh := shares(t.counts)
	if a.n == 0 || sh.Min < a.worst {
		a.worst = sh.Min
	}
	a.n++
	a.pt.Check = workload.MergeChecks(a.pt.Check, t.check)
}

func (a *oversubAcc) finish() oversubPoint {
	a.pt.IDsPerSec = stats.Median(a.pt.Repeats)
	a.pt.Latency = workload.Merge(a.recs)
	a.pt.Latency.Hist = nil // the percentiles are the finding; the file stays small
	a.pt.Shares = shares(a.counts)
	a.pt.WorstMin = a.worst
	return a.pt
}
