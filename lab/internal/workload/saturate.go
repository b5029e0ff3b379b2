package workload

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/lab/internal/limit"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// SaturateConfig shapes the saturate sweep: a closed loop of G goroutines for
// Duration, Repeats times, for each G in Goroutines. Its fields are
// lab.SaturateConfig's, whose documentation says what each means.
type SaturateConfig struct {
	Goroutines  []int         // nil is 1, 2, 4, … up to 2 x GOMAXPROCS
	Duration    time.Duration // per repeat; 0 is DefaultSaturateDuration
	Repeats     int           // 0 is DefaultSaturateRepeats
	MaxIDs      int           // IDs kept for the check per repeat; 0 is DefaultSaturateMaxIDs
	SampleEvery int           // one call in SampleEvery timed; 0 is DefaultSampleEvery
}

func (c SaturateConfig) withDefaults() SaturateConfig {
	if len(c.Goroutines) == 0 {
		c.Goroutines = sweep(2 * runtime.GOMAXPROCS(0))
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

// RepeatCount is the repeats per goroutine count: Repeats, or its default
// when 0.
func (c SaturateConfig) RepeatCount() int { return c.withDefaults().Repeats }

// sweep returns 1, 2, 4, … up to and including top (top itself is added
// when it is not a power of two).
func sweep(top int) []int {
	var g []int
	for n := 1; n < top; n *= 2 {
		g = append(g, n)
	}
	return append(g, max(top, 1))
}

// SaturateSweep runs the saturate sweep over subs, every goroutine count
// of cfg for each, with the repeats interleaved: round r measures every
// subject at every count once before round r+1 starts. What the host gives
// then changes alike for all of them (another process's load, a frequency
// step), so that the per-repeat ratio of two subjects, or of one subject
// at two goroutine counts, compares like with like. progress, when not
// nil, is told before each repeat. The results come in subs order, then
// goroutine count.
func SaturateSweep(subs []subject.Subject, cfg SaturateConfig, progress func(s subject.Subject, g, repeat int)) ([]result.SaturateResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	points := make([]*saturation, 0, len(subs)*len(cfg.Goroutines))
	for _, s := range subs {
		for _, g := range cfg.Goroutines {
			p, err := newSaturation(s, g, cfg)
			if err != nil {
				return nil, err
			}
			points = append(points, p)
		}
	}
	buf := make([]subject.ID, cfg.MaxIDs)
	for r := range cfg.Repeats {
		for _, p := range points {
			if progress != nil {
				progress(p.s, p.g, r)
			}
			if err := p.repeat(buf); err != nil {
				return nil, err
			}
		}
	}
	out := make([]result.SaturateResult, len(points))
	for i, p := range points {
		out[i] = p.finish()
	}
	return out, nil
}

// split cuts b, the memory the IDs of one repeat are kept in for the
// check (shared by every point of a sweep: one repeat runs at a time),
// into g streams of equal capacity.
func split(b []subject.ID, g int) [][]subject.ID {
	per := max(len(b)/g, 1)
	if per*g > len(b) {
		b = make([]subject.ID, per*g)
	}
	streams := make([][]subject.ID, g)
	for i := range streams {
		streams[i] = b[i*per : (i+1)*per : (i+1)*per]
	}
	return streams
}

// saturation is one point of a sweep, a subject at a goroutine count,
// across its repeats.
type saturation struct {
	gathered
	s   subject.Subject
	g   int
	cfg SaturateConfig
	res result.SaturateResult
}

func newSaturation(s subject.Subject, g int, cfg SaturateConfig) (*saturation, error) {
	p := &saturation{s: s, g: g, res: result.SaturateResult{Subject: s.Name, Goroutines: g}}
	if err := cfg.Validate(); err != nil {
		return p, err
	}
	if g < 1 || g > MaxGoroutines {
		return p, configErr("saturate goroutines %d: want 1 to %d", g, MaxGoroutines)
	}
	p.cfg = cfg.withDefaults()
	p.res.Duration = p.cfg.Duration
	p.gathered = gather(g)
	return p, nil
}

// repeat runs one repeat into the streams of buf and adds it to the
// point's result.
func (p *saturation) repeat(buf []subject.ID) error {
	s, g, cfg := p.s, p.g, p.cfg
	m, err := s.New()
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	callers := subject.Callers(m, g)
	streams := split(buf, g)
	var stop atomic.Bool
	var timer *time.Timer
	counts := make([]int, g)
	errs := make([]error, g)
	ends := make([]int64, g)
	p.win.reset()
	p.meter.begin()
	cpu, srv := cpuSince(processCPU), cpuSince(s.ServerCPU)
	t0 := FanOut(g, func() { timer = time.AfterFunc(cfg.Duration, func() { stop.Store(true) }) }, func(i int, _ int64) {
		counts[i], errs[i] = p.loop(i, callers[i], streams[i], &stop)
		ends[i] = limit.Now()
		p.win.leave(i, counts[i])
	})
	cpuUsed, cpuOK := cpu()
	srvUsed, srvOK := srv()
	p.meter.end()
	timer.Stop()
	wall := time.Now()
	elapsed := slices.Max(ends) - t0
	n := 0
	for i := range streams {
		streams[i] = streams[i][:counts[i]]
		n += counts[i]
	}
	nerr, first := failures(errs)
	p.res.Samples = append(p.res.Samples, float64(n)/(float64(elapsed)/1e9))
	// All repeats or none: a gap would pair one repeat's figure with
	// another's.
	if cpuOK && len(p.res.CPUSamples) == len(p.res.Samples)-1 {
		p.res.CPUSamples = append(p.res.CPUSamples, float64(n)/cpuUsed.Seconds())
	}
	if srvOK && len(p.res.ServerCPUSamples) == len(p.res.Samples)-1 {
		p.res.ServerCPUSamples = append(p.res.ServerCPUSamples, float64(n)/srvUsed.Seconds())
	}
	if lead := newestTime(streams, s).Sub(wall).Nanoseconds(); len(p.res.Samples) == 1 || lead > p.res.LeadNs {
		p.res.LeadNs = lead
	}
	p.sample()
	p.meter.add(subject.Stats(m))
	p.issued += n
	if fill, ok := tickFill(s, m, streams); ok {
		p.res.TickFill = append(p.res.TickFill, fill)
	}
	p.res.Check = MergeChecks(p.res.Check, Check(s, m, streams, nerr, first))
	return nil
}

// loop is goroutine i's closed loop: calls into ids until stop is set,
// the buffer is full or a call fails, timing one call in SampleEvery. It
// returns the calls that returned an ID and the error that stopped it.
// It makes its first call whatever stop says: a host busy enough to
// hold every goroutine past the repeat's Duration (seen at load average
// 31 with 20 ms) would otherwise record a generator that minted nothing,
// 0 IDs a second, where the figure is the load's (the first call's wait
// is in the repeat's elapsed time).
func (p *saturation) loop(i int, caller subject.Minter, ids []subject.ID, stop *atomic.Bool) (int, error) {
	rec, every := p.recs[i], p.cfg.SampleEvery
	k := 0
	for ; k < len(ids) && (k == 0 || !stop.Load()); k++ {
		var id subject.ID
		var err error
		if k%every == 0 {
			// The window is watched at the timed calls only: the
			// untimed ones stay as bare as the loop was before it.
			if p.win.watching(i) {
				p.win.see(i, k)
			}
			t := limit.Now()
			id, err = caller.Next()
			rec.Record(limit.Now() - t)
		} else {
			id, err = caller.Next()
		}
		if err != nil {
			return k, err
		}
		ids[k] = id
	}
	return k, nil
}

// cpuSince reads the CPU time read gives (nil: none is read) and returns
// the reading of the time used since: ok is false where a read failed or
// no time was counted.
func cpuSince(read func() (time.Duration, bool)) func() (time.Duration, bool) {
	if read == nil {
		return func() (time.Duration, bool) { return 0, false }
	}
	t0, ok0 := read()
	return func() (time.Duration, bool) {
		t1, ok1 := read()
		return t1 - t0, ok0 && ok1 && t1 > t0
	}
}

// finish returns the point's result over the repeats run.
func (p *saturation) finish() result.SaturateResult {
	res := p.res
	res.Latency, res.Contention, res.Fairness = p.gathered.finish()
	res.IDsPerSec = stats.Median(res.Samples)
	if len(res.ServerCPUSamples) > 0 {
		res.ServerPerCPUSec = stats.Median(res.ServerCPUSamples)
	}
	if c := p.s.Ceiling(); c > 0 {
		res.CeilingPct = 100 * res.IDsPerSec / c
	}
	return res
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
