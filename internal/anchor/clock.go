// Package anchor is the mechanism behind clocksrc.Default: a clock that
// maps the runtime's vDSO monotonic reading onto Unix time through an
// anchor it keeps close to CLOCK_REALTIME without ever going backwards. It
// is internal so that the generators' engine can hold the concrete type and
// read it without an interface call, while users of clocksrc see only
// clocksrc.Clock.
package anchor

import (
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/internal/mono"
)

// MaxSlewPPM bounds how fast a Clock falls back towards a wall clock found
// behind it (clocksrc.MaxSlewPPM is this value).
const MaxSlewPPM = 500

// Sample pairs a monotonic reading with the wall clock: wall = Mono + Offset.
type Sample struct {
	Mono   int64 // monotonic nanoseconds at the middle of the sample
	Offset int64 // the wall clock minus the monotonic reading
	Spread int64 // half the time the sample took: its uncertainty
}

// Take reads the wall clock between two monotonic reads and takes the
// midpoint, so the error is at most half the bracket.
func Take(mono, wall func() int64) Sample {
	m1 := mono()
	w := wall()
	m2 := mono()
	mid := m1 + (m2-m1)/2
	return Sample{Mono: mid, Offset: w - mid, Spread: (m2 - m1) / 2}
}

// Clock is clocksrc.Default's clock. Its mapping is an immutable segment
// swapped atomically, so readers never lock. The engine holds it by its
// concrete type so that it can call UnixNano directly rather than through
// the clocksrc.Clock interface: on a path that costs tens of nanoseconds,
// the indirect call is a measurable share.
type Clock struct {
	mono      func() int64 // nil: mono.Now, called directly
	wall      func() int64
	every     int64 // resync interval, ns
	seg       atomic.Pointer[Segment]
	resyncing atomic.Bool

	born int64 // monotonic time the clock was made
	seen seen  // what the resyncs found
}

// seen counts what a Clock's resyncs found of the wall clock.
// Only the caller holding resyncing writes it; Corrections reads it from
// anywhere.
type seen struct {
	resyncs, forwardSteps, backwardSteps atomic.Uint64
	forward, backward                    atomic.Int64 // ns
}

// Segment is one immutable mapping of a Clock: it maps monotonic
// time m >= m0 to wall time
//
//	wall(m) = m + off0 - min((m-m0)/slewDiv, debt)
//
// until the next resync is due. The slew term grows by at most 1 ns every
// slewDiv ns, so wall(m) never decreases as m grows.
type Segment struct {
	m0, off0, debt int64
	next           int64 // monotonic time of the next resync
	// unc bounds the error of the offset the segment heads for,
	// off0-debt, as the samples it came from bound it. A later sample is
	// taken for a step of the wall clock only when it disagrees by more
	// than both samples' uncertainty: a sample taken across a preemption
	// is loose, and the tight one after it must not read as a step.
	unc int64
}

const slewDiv = 1_000_000 / MaxSlewPPM

func (s *Segment) offsetAt(m int64) int64 {
	if s.debt == 0 {
		return s.off0
	}
	slew := (m - s.m0) / slewDiv
	if slew > s.debt {
		slew = s.debt
	}
	return s.off0 - slew
}

// New returns a Clock reading monoNow (nil: mono.Now, called directly) and
// comparing itself with wallNow every resync.
func New(monoNow, wallNow func() int64, resync time.Duration) *Clock {
	c := &Clock{mono: monoNow, wall: wallNow, every: int64(resync)}
	a := Take(c.monoNow, c.wall)
	c.born = a.Mono
	c.seg.Store(&Segment{m0: a.Mono, off0: a.Offset, next: a.Mono + c.every, unc: a.Spread})
	return c
}

// monoNow reads the monotonic source: New's default is the runtime's vDSO
// clock, called directly; tests script their own.
func (c *Clock) monoNow() int64 {
	if c.mono == nil {
		return mono.Now()
	}
	return c.mono()
}

// UnixNano implements clocksrc.Clock.
func (c *Clock) UnixNano() int64 {
	for {
		s := c.seg.Load()
		m := c.monoNow()
		if ns, ok := c.Map(s, m); ok {
			return ns
		}
		if m < s.next {
			continue // s was replaced after it was loaded: map afresh
		}
		if c.resync(s) {
			continue
		}
		// Another caller is resyncing. Its new segment starts at a
		// monotonic reading it took before installing it, possibly before
		// m, and may start slewing there; mapping m through s alone could
		// then hand out a time the new segment undercuts a moment later.
		// Slewing from s.next, which that reading cannot precede, keeps
		// this read at or below anything the new segment gives for m or
		// later.
		off := s.offsetAt(m) - (m-s.next)/slewDiv
		if c.seg.Load() == s {
			return m + off
		}
	}
}

// Current and Map split UnixNano around its monotonic reading, so that a
// caller on a path that costs tens of nanoseconds can make the vDSO read
// itself and have the rest inlined, instead of paying for UnixNano's call
// and its loop:
//
//	seg := c.Current()
//	ns, ok := c.Map(seg, mono.Now())
//	if !ok {
//		ns = c.UnixNano()
//	}
//
// Current returns nil when the clock's monotonic source is not mono.Now
// (a test's script); Map then reports false.
func (c *Clock) Current() *Segment {
	if c.mono != nil {
		return nil
	}
	return c.seg.Load()
}

// Map maps the monotonic reading m, taken after s was loaded, through s.
// It reports false, leaving the work to UnixNano, when s is nil, when a
// resync is due, or when s was replaced in the meantime: a reader that
// took the old segment and then read the clock after a resync installed a
// new one would map a late reading through a stale offset, and reading
// the pointer again closes that.
func (c *Clock) Map(s *Segment, m int64) (ns int64, ok bool) {
	if s == nil || m >= s.next || c.seg.Load() != s {
		return 0, false
	}
	return m + s.offsetAt(m), true
}

// resync lets one caller compare the clock with the wall clock and install
// the next segment, reporting whether it did; the others carry on with the
// current segment meanwhile.
func (c *Clock) resync(s *Segment) bool {
	if !c.resyncing.CompareAndSwap(false, true) {
		return false
	}
	defer c.resyncing.Store(false)
	if c.seg.Load() != s {
		return true
	}
	a := Take(c.monoNow, c.wall)
	next, step := nextSegment(s, a, c.monoNow(), c.every)
	c.seg.Store(next)
	c.seen.resyncs.Add(1)
	switch {
	case step > 0:
		c.seen.forwardSteps.Add(1)
		c.seen.forward.Add(step)
	case step < 0:
		c.seen.backwardSteps.Add(1)
		c.seen.backward.Add(-step)
	}
	return true
}

// nextSegment decides how the clock follows the wall clock. now is a
// monotonic reading taken after the sample; the new segment starts there so
// that it continues the old one without a jump backwards. step is the
// wall clock's step the sample shows, if any: positive when the wall
// clock was found ahead of the clock, which jumped that far onto it;
// negative when it was found behind where the clock was heading (the wall
// clock, or a slew's end); 0 for a slew carrying on, and for a
// disagreement the two samples' uncertainty explains.
func nextSegment(s *Segment, a Sample, now, resync int64) (next *Segment, step int64) {
	cur := s.offsetAt(now)
	target := s.off0 - s.debt
	next = &Segment{m0: now, off0: cur, next: now + resync}
	// 1 ns more for the midpoint's rounding.
	noise := a.Spread + s.unc + 1
	switch {
	case a.Offset > cur+a.Spread:
		// Wall clock ahead of us: follow at once. Jumping forward never
		// makes a generator see a rewind.
		next.off0, next.unc = a.Offset, a.Spread
		if a.Offset-cur > noise {
			step = a.Offset - cur
		}
	case a.Offset < cur-a.Spread:
		// Wall clock behind us: slew towards it, never step back.
		next.debt, next.unc = cur-a.Offset, a.Spread
		if a.Offset < target-noise {
			step = a.Offset - target
		}
	case cur == target:
		// The sample agrees with where the clock already was: the wall
		// clock is within both samples' bounds of it.
		next.unc = min(s.unc, 2*a.Spread)
	default:
		// A slew dropped short of its end: the clock is within the
		// sample's spread of the wall clock, whose error is as large.
		next.unc = 2 * a.Spread
	}
	return next, step
}

// Corrections is what one Clock has done to follow the wall clock since it
// was made. clocksrc.Corrections documents each field and is converted
// from this one, so the compiler holds the two to the same fields; the
// documentation lives there alone.
type Corrections struct {
	Running       time.Duration
	Resyncs       uint64
	ForwardSteps  uint64
	Forward       time.Duration
	BackwardSteps uint64
	Backward      time.Duration
	SlewLeft      time.Duration
}

// Corrections reports what the clock has done to follow the wall clock.
// It reads the monotonic clock once and takes no lock.
func (c *Clock) Corrections() Corrections {
	s := c.seg.Load()
	m := c.monoNow()
	return Corrections{
		Running:       time.Duration(m - c.born),
		Resyncs:       c.seen.resyncs.Load(),
		ForwardSteps:  c.seen.forwardSteps.Load(),
		Forward:       time.Duration(c.seen.forward.Load()),
		BackwardSteps: c.seen.backwardSteps.Load(),
		Backward:      time.Duration(c.seen.backward.Load()),
		SlewLeft:      time.Duration(s.offsetAt(m) - (s.off0 - s.debt)),
	}
}
