package workload

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/snowlab/snowlab/lab/internal/limit"
	"github.com/snowlab/snowlab/lab/internal/perfevent"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// BurstConfig shapes a fan-out burst: Goroutines released together ask for
// IDs in all, Repeats times with Pause between. Its fields are
// lab.BurstConfig's, whose documentation says what each means.
type BurstConfig struct {
	IDs           int           // IDs per burst; 0 is DefaultBurstIDs
	Goroutines    int           // 0 is DefaultBurstGoroutines
	Repeats       int           // 0 is DefaultBurstRepeats
	Pause         time.Duration // 0 is DefaultBurstPause
	CeilingBudget time.Duration // 0 is DefaultCeilingBudget
}

func (c BurstConfig) withDefaults() BurstConfig {
	c.IDs = cmp.Or(c.IDs, DefaultBurstIDs)
	c.Goroutines = min(cmp.Or(c.Goroutines, DefaultBurstGoroutines), c.IDs)
	c.Repeats = cmp.Or(c.Repeats, DefaultBurstRepeats)
	c.Pause = cmp.Or(c.Pause, DefaultBurstPause)
	c.CeilingBudget = cmp.Or(c.CeilingBudget, DefaultCeilingBudget)
	return c
}

// boundFor is c (with its defaults) as it is run against s: IDs bounded
// by s's ceiling over CeilingBudget, and no more goroutines than IDs.
func (c BurstConfig) boundFor(s subject.Subject) BurstConfig {
	c = c.withDefaults()
	c.IDs = int(ceilingBound(s, int64(c.IDs), c.CeilingBudget))
	c.Goroutines = min(c.Goroutines, c.IDs)
	return c
}

// Burst fires cfg.Repeats bursts at a fresh instance of s each time and
// reports makespan, ticks spanned, lead, per-call latency, contention and
// event counts, and the correctness check over every ID issued. batch
// asks for each goroutine's share with one Fill (NextIDs) call instead of
// one Next call per ID.
func Burst(s subject.Subject, cfg BurstConfig, batch bool, ev *perfevent.Counter) (result.BurstResult, error) {
	if err := cfg.Validate(); err != nil {
		return result.BurstResult{Subject: s.Name}, err
	}
	asked := cfg.withDefaults().IDs
	cfg = cfg.boundFor(s)
	res := burstHeader(s, cfg, asked, batch)
	b := newBurster(s, cfg, batch)
	// The contention meter and the event counters span every repeat, so
	// that their per-ID figures divide by all the IDs issued.
	b.meter.begin()
	if ev != nil {
		ev.Start()
	}
	for r := 0; r < cfg.Repeats; r++ {
		if r > 0 {
			time.Sleep(cfg.Pause)
		}
		if err := b.repeat(&res); err != nil {
			return res, err
		}
	}
	if ev != nil {
		res.Events = ev.Stop(b.issued)
	}
	res.Latency, res.Contention, res.Fairness = b.finish()
	if med := stats.Median(res.MakespanNs); med > 0 {
		res.IDsPerSec = float64(cfg.IDs) / (float64(med) / 1e9)
	}
	return res, nil
}

// burstHeader is the part of a burst result fixed before it runs: its
// shape as bounded (cfg), what was asked if the bound cut it, and the
// fewest ticks a strict s can mint cfg.IDs in.
func burstHeader(s subject.Subject, cfg BurstConfig, asked int, batch bool) result.BurstResult {
	via := "NextID"
	if batch {
		via = "NextIDs"
	}
	res := result.BurstResult{Subject: s.Name, Via: via, Goroutines: cfg.Goroutines, IDs: cfg.IDs, Repeats: cfg.Repeats}
	if cfg.IDs < asked {
		res.RequestedIDs, res.CeilingBudget = asked, cfg.CeilingBudget
	}
	if s.Strict && s.PerTick > 0 {
		res.MinTicks = int(math.Ceil(float64(cfg.IDs) / float64(s.PerTick*max(s.Nodes, 1))))
	}
	return res
}

// burster holds what a burst's repeats share: each goroutine's ID buffer,
// allocated once so that no repeat measures an allocation, and what the
// repeats add up (its latency recorders accumulate over all of them).
type burster struct {
	gathered
	s       subject.Subject
	cfg     BurstConfig
	batch   bool // one Fill call per goroutine instead of Next per ID
	streams [][]subject.ID
}

func newBurster(s subject.Subject, cfg BurstConfig, batch bool) *burster {
	b := &burster{gathered: gather(cfg.Goroutines), s: s, cfg: cfg, batch: batch,
		streams: make([][]subject.ID, cfg.Goroutines)}
	for i := range b.streams {
		b.streams[i] = make([]subject.ID, share(cfg.IDs, cfg.Goroutines, i))
	}
	return b
}

// repeat runs one burst at a fresh instance of the subject, appends its
// makespan, ticks and lead to res, merges its check into res.Check and
// its minter's counters and IDs into what the repeats gathered.
func (b *burster) repeat(res *result.BurstResult) error {
	m, err := b.s.New()
	if err != nil {
		return fmt.Errorf("%s: %w", b.s.Name, err)
	}
	t0, ends, errs := b.fire(subject.Callers(m, b.cfg.Goroutines))
	// The lead compares the newest ID's time with the wall clock read
	// right after the burst ends.
	wall := time.Now()
	res.MakespanNs = append(res.MakespanNs, slices.Max(ends)-t0)

	b.meter.add(subject.Stats(m))

	newest, ticks := timeSpan(b.streams, b.s)
	res.Ticks = append(res.Ticks, ticks)
	res.LeadNs = append(res.LeadNs, newest.Sub(wall).Nanoseconds())

	if !b.batch {
		b.sample()
	}
	nerr, first := failures(errs)
	c := Check(b.s, m, b.streams, nerr, first)
	res.Check = MergeChecks(res.Check, c)
	b.issued += c.IDs
	// A caller that failed cut its stream short; the next repeat fills
	// the whole buffer again.
	for i := range b.streams {
		b.streams[i] = b.streams[i][:cap(b.streams[i])]
	}
	return nil
}

// fire releases one goroutine per caller together, each asking for its
// stream's IDs, and returns the release time, each goroutine's end time
// and error. A stream is cut to the IDs its goroutine got.
func (b *burster) fire(callers []subject.Minter) (t0 int64, ends []int64, errs []error) {
	ends = make([]int64, len(callers))
	errs = make([]error, len(callers))
	b.win.reset()
	t0 = FanOut(len(callers), nil, func(i int, _ int64) {
		ids, rec, caller := b.streams[i], b.recs[i], callers[i]
		if b.batch {
			t := limit.Now()
			n, err := subject.Fill(caller, ids)
			rec.Record(limit.Now() - t)
			b.streams[i], errs[i] = ids[:n], err
		} else {
			b.streams[i], errs[i] = b.calls(i, caller, ids, rec)
		}
		ends[i] = limit.Now()
	})
	return t0, ends, errs
}

// calls is goroutine i's part of a burst via NextID: one call per ID of
// ids, each timed, and its count in the fairness window. It returns the
// IDs it got and the error that stopped it.
func (b *burster) calls(i int, caller subject.Minter, ids []subject.ID, rec *Recorder) ([]subject.ID, error) {
	for k := range ids {
		if b.win.watching(i) {
			b.win.see(i, k)
		}
		t := limit.Now()
		id, err := caller.Next()
		rec.Record(limit.Now() - t)
		if err != nil {
			b.win.leave(i, k)
			return ids[:k], err
		}
		ids[k] = id
	}
	b.win.leave(i, len(ids))
	return ids, nil
}

// share is goroutine i's part of n split g ways.
func share(n, g, i int) int {
	s := n / g
	if i < n%g {
		s++
	}
	return s
}

// timeSpan returns the newest embedded time among the IDs and how many
// distinct ticks they carry (1 ms ticks for formats without a tick).
func timeSpan(streams [][]subject.ID, s subject.Subject) (newest time.Time, ticks int) {
	tick := s.Tick
	if tick <= 0 {
		tick = time.Millisecond
	}
	seen := map[int64]struct{}{}
	for _, ids := range streams {
		for _, id := range ids {
			t, _ := s.Decode(id)
			if t.After(newest) {
				newest = t
			}
			seen[t.UnixNano()/int64(tick)] = struct{}{}
		}
	}
	return newest, len(seen)
}

// MergeChecks adds the verdict b to a: counts summed, the worst tick
// and the first error kept.
func MergeChecks(a, b result.Check) result.Check {
	a.IDs += b.IDs
	a.Duplicates += b.Duplicates
	a.OrderViolations += b.OrderViolations
	a.MaxPerTickNode = max(a.MaxPerTickNode, b.MaxPerTickNode)
	a.CeilingExceeded = a.CeilingExceeded || b.CeilingExceeded
	a.Errors += b.Errors
	a.FirstError = cmp.Or(a.FirstError, b.FirstError)
	return a
}
