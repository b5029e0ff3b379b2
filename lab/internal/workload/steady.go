package workload

import (
	"cmp"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/lab/internal/limit"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// SteadyConfig shapes the open-loop workload: calls scheduled at Rate per
// second for Duration, served by Workers goroutines. Its fields are
// lab.SteadyConfig's, whose documentation says what each means.
type SteadyConfig struct {
	Rate          float64       // calls per second; 0 is DefaultSteadyRate
	Duration      time.Duration // 0 is DefaultSteadyDuration
	Workers       int           // 0 is GOMAXPROCS
	CeilingBudget time.Duration // 0 is DefaultCeilingBudget
}

func (c SteadyConfig) withDefaults() SteadyConfig {
	c.Rate = cmp.Or(c.Rate, DefaultSteadyRate)
	c.Duration = cmp.Or(c.Duration, DefaultSteadyDuration)
	c.Workers = cmp.Or(c.Workers, runtime.GOMAXPROCS(0))
	c.CeilingBudget = cmp.Or(c.CeilingBudget, DefaultCeilingBudget)
	return c
}

// calls is how many calls c schedules against s, and for how long:
// Rate × Duration, or, where s's ceiling is below Rate, no more than
// the ceiling serves in CeilingBudget, over the shorter time that takes
// at Rate.
func (c SteadyConfig) calls(s subject.Subject) (int64, time.Duration) {
	total := int64(c.Rate * c.Duration.Seconds())
	if ceil := s.Ceiling(); ceil <= 0 || c.Rate <= ceil {
		return total, c.Duration
	}
	if bounded := ceilingBound(s, total, c.CeilingBudget); bounded < total {
		return bounded, time.Duration(float64(bounded) / c.Rate * float64(time.Second))
	}
	return total, c.Duration
}

// Steady drives s open-loop: call i is due at start + i/Rate whether or not
// earlier calls have returned, and its latency is measured from when it was
// due, not from when a worker got to it. A generator that stalls for a
// millisecond therefore shows the whole backlog it caused in the tail,
// instead of the one slow call a closed loop would record (coordinated
// omission).
func Steady(s subject.Subject, cfg SteadyConfig) (result.SteadyResult, error) {
	if err := cfg.Validate(); err != nil {
		return result.SteadyResult{Subject: s.Name}, err
	}
	cfg = cfg.withDefaults()
	total, length := cfg.calls(s)
	res := result.SteadyResult{Subject: s.Name, TargetRate: cfg.Rate, Duration: length}
	if length < cfg.Duration {
		res.RequestedDuration, res.CeilingBudget = cfg.Duration, cfg.CeilingBudget
	}
	m, err := s.New()
	if err != nil {
		return res, fmt.Errorf("%s: %w", s.Name, err)
	}
	callers := subject.Callers(m, cfg.Workers)
	interval := float64(time.Second) / cfg.Rate
	streams := make([][]subject.ID, cfg.Workers)
	recs := NewRecorders(cfg.Workers)
	sent := NewRecorders(cfg.Workers) // the same calls from when they were sent
	errs := make([]error, cfg.Workers)
	for i := range streams {
		streams[i] = make([]subject.ID, 0, total/int64(cfg.Workers)+1)
	}
	var nextCall atomic.Int64
	srv := cpuSince(s.ServerCPU)
	t0 := FanOut(cfg.Workers, nil, func(w int, t0 int64) {
		ids, rec, urec, caller := streams[w], recs[w], sent[w], callers[w]
		wt := newWaiter()
		defer wt.close()
		for {
			i := nextCall.Add(1) - 1
			if i >= total {
				break
			}
			due := t0 + int64(float64(i)*interval)
			waitUntil(wt, due)
			t := limit.Now()
			id, err := caller.Next()
			end := limit.Now()
			rec.Record(end - due)
			urec.Record(end - t)
			if err != nil {
				errs[w] = err
				break
			}
			ids = append(ids, id)
		}
		streams[w] = ids
	})
	elapsed := limit.Now() - t0
	srvUsed, srvOK := srv()
	n := 0
	counts := make([]int64, len(streams))
	for i := range streams {
		n += len(streams[i])
		counts[i] = int64(len(streams[i]))
	}
	if fs, ok := sampleOf(counts, time.Duration(elapsed)); ok {
		res.Fairness = fairnessOf([]fairnessSample{fs})
	}
	if srvOK && n > 0 {
		res.ServerCPUPerID = srvUsed / time.Duration(n)
	}
	nerr, first := failures(errs)
	res.Achieved = float64(n) / (float64(elapsed) / 1e9)
	res.Latency = Merge(recs)
	unc := Merge(sent)
	res.Uncorrected = &unc
	res.Check = Check(s, m, streams, nerr, first)
	return res, nil
}

// spinWindow is how long before a due call a waiter stops sleeping and
// yields until it is due: a wake from sleep can be this late.
const spinWindow = 50 * time.Microsecond

// waitUntil returns at monotonic time due: asleep while it is far, then
// yielding, so that a worker neither oversleeps a due call nor burns a
// core waiting for one long in the future. The sleep is the waiter's
// (a timer the network poller wakes for, where the system has one): the
// runtime rounds a sleep under a millisecond up to one when nothing else
// wakes it, and goroutines that yield for long starve the poller, so a
// remote subject's answers would wait for the runtime's 10 ms backstop.
func waitUntil(w *waiter, due int64) {
	for {
		d := due - limit.Now()
		switch {
		case d <= 0:
			return
		case d > int64(spinWindow):
			w.sleepUntil(due - int64(spinWindow))
		default:
			runtime.Gosched()
		}
	}
}
