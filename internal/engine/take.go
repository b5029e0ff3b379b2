package engine

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/mono"
)

// stateWord holds a state word for take: Cell's *atomic.Uint64, or
// LockedCell's plain word whose CompareAndSwap always succeeds.
type stateWord interface {
	Load() uint64
	CompareAndSwap(old, new uint64) bool
}

// Next is the single-ID fast path. When the word's tick may still be used
// (the clock is in it, or, for Monotonic, behind it within MaxLead) it
// reserves one sequence value with a fetch-add, which cannot fail and so
// cannot retry (or with a compare-and-swap where the layout leaves no room
// for fetch-add's overshoot); when the clock has moved to a new tick it
// claims that tick with one compare-and-swap. Everything else (a spent
// tick, a rewind, the window's end or the reservation's, a lost race)
// goes through take.
func (s *Cell) Next(r *Rules) (snowlab.ID, error) {
	w := s.word.Load() // state first, clock after: a stale reading is never a rewind
	// The clock read is written out here rather than called through
	// r.read: this is the path every ID takes, and each call level is a
	// measurable share of it. The default clock's segment is loaded, the
	// vDSO read, and the mapping inlined; anything unusual (a resync due,
	// a segment replaced meanwhile, another clock) takes the full read.
	var ns int64
	if a := r.anchored; a != nil {
		seg := a.Current()
		var ok bool
		if ns, ok = a.Map(seg, mono.Now()); !ok {
			ns = a.UnixNano()
		}
	} else {
		ns = r.clock.UnixNano()
	}
	if r.reuses(w, ns, s.space.cap) {
		if r.addOK {
			old := s.word.Add(1) - 1
			// The word may have moved on since the load. Whatever tick it
			// holds was installed by a caller whose clock had reached it
			// (or, for Monotonic, came within its lead) before this add,
			// so an unspent count there is as good an ID as the one aimed
			// at.
			if t, n := r.unpack(old); n < s.space.cap {
				return r.handOut(r.compose(t, n, s.space), s.space.node)
			}
		} else if s.word.CompareAndSwap(w, w+1) {
			t, n := r.unpack(w)
			return r.handOut(r.compose(t, n, s.space), s.space.node)
		} else {
			s.ctr.casRetries.Add(1)
		}
		return s.nextSlow(r)
	}
	now := r.tickOf(ns) // once: claims and, past it, take read the same tick
	if r.claims(w, now) {
		r.use(now)
		if !s.word.CompareAndSwap(w, r.pack(now, 1)) {
			s.ctr.casRetries.Add(1)
			return s.nextSlow(r)
		}
		return r.handOut(r.compose(now, 0, s.space), s.space.node)
	}
	return s.takeOne(r, sample{w, now, ns})
}

// nextSlow is Next after a lost race: the plan, read afresh.
func (s *Cell) nextSlow(r *Rules) (snowlab.ID, error) {
	return s.takeOne(r, r.sample(&s.word))
}

// takeOne is take for one ID from the sample at.
func (s *Cell) takeOne(r *Rules, at sample) (snowlab.ID, error) {
	var one [1]snowlab.ID
	_, err := r.take(&s.word, &s.ledger, one[:], at, waitForIDs)
	return one[0], err
}

// reuses is Next's first fast case: the clock, ns in Unix nanoseconds,
// lets a call take the next count of the state word w's tick t, and the
// count is not spent. It is plan's issue from (t, count) written in
// nanoseconds, so that it needs a multiply and no division: the clock is
// in tick t, or, for Monotonic, past the epoch and behind t by at most
// MaxLead (backNs), and tick t ends within the reservation.
func (r *Rules) reuses(w uint64, ns int64, cap uint64) bool {
	start := r.tickStart(int64(w >> (r.nShift & 63)))
	end := start + r.unitNs
	if ns >= end || ns < max(start-r.backNs, r.epochNs) || w&r.nMask >= cap || r.endsPastUntil(end) {
		return false
	}
	return true
}

// claims is Next's second fast case: the clock's tick now is after the
// state word w's, inside the window and the reservation, so plan would
// issue from now with count 0.
func (r *Rules) claims(w uint64, now int64) bool {
	t, _ := r.unpack(w)
	return now > t && now <= r.maxTick && !r.fenced(now)
}

// handOut returns id unless the grant was revoked after its tick was
// claimed: that is what lets Fence.LastEnd, read after a revocation,
// cover every ID ever handed out. Without a fence it is one compare with
// nil and inlines into Next; the check and the error are out of line.
func (r *Rules) handOut(id snowlab.ID, node int) (snowlab.ID, error) {
	if r.grant == nil {
		return id, nil
	}
	return r.handOutFenced(id, node)
}

// handOutFenced is handOut under a fence. It is kept out of line: inlined
// into handOut, it would take handOut over the inlining budget.
//
//go:noinline
func (r *Rules) handOutFenced(id snowlab.ID, node int) (snowlab.ID, error) {
	if r.grant.Revoked() {
		return 0, r.revokedErr(node)
	}
	return id, nil
}

// sample is a state word and a clock reading taken after it, as a tick and
// in Unix nanoseconds.
type sample struct {
	word     uint64
	tick, ns int64
}

// sample loads c and then reads the clock: in that order, a stale reading
// is never a rewind.
func (r *Rules) sample(c stateWord) sample {
	w := c.Load()
	ns := r.read()
	return sample{w, r.tickOf(ns), ns}
}

// onWait is what take does when the plan is to wait.
type onWait bool

const (
	waitForIDs onWait = true  // wait, within the bounds, and carry on
	stopAtWait onWait = false // return what was taken so far, with no error
)

// take fills dst from the state word c and the ledger l, starting from the
// sample at, which the caller already took. Each round reserves as many
// IDs as the plan allows with one CompareAndSwap: for Monotonic a whole
// batch at once, for Strict the rest of the current tick.
func (r *Rules) take(c stateWord, l *ledger, dst []snowlab.ID, at sample, mode onWait) (int, error) {
	var w waiter
	done := 0
	for round := 0; done < len(dst); round++ {
		if round > 0 {
			at = r.sample(c)
		}
		p := r.plan(at.word, at.tick, len(dst)-done, l.space.cap)
		if p.act != issue && r.revoked() {
			// Before any wait or refusal: a generator whose lease is
			// gone refuses at once, not after waiting for a tick it may
			// not use anyway. An issue finds out after its CAS, below.
			return done, r.revokedErr(l.space.node)
		}
		switch p.act {
		case issue:
			if t, _ := r.unpack(p.next); t > int64(at.word>>(r.nShift&63)) {
				r.use(t)
			}
			if !c.CompareAndSwap(at.word, p.next) {
				l.ctr.casRetries.Add(1)
				continue
			}
			if r.revoked() {
				return done, r.revokedErr(l.space.node)
			}
			r.fill(dst[done:done+p.count], p.tick, p.n, l.space)
			done += p.count
		case waitTick, waitRewind:
			if mode == stopAtWait {
				return done, nil
			}
			if err := w.wait(r, p, at.tick, at.ns, l); err != nil {
				return done, err
			}
		case refuse:
			l.ctr.refusals.Add(1)
			return done, r.refuseErr(at.word, at.tick, l.space.node)
		case waitFence:
			if mode == stopAtWait {
				return done, nil
			}
			if err := w.waitFence(r, p, l); err != nil {
				return done, err
			}
		case unreserved:
			return done, r.unreservedErr(p.tick, l.space.node)
		case overflow:
			return done, r.overflowErr(at.ns, p.tick, l.space.node)
		}
	}
	return done, nil
}

func (r *Rules) revoked() bool { return r.grant != nil && r.grant.Revoked() }

// The errors are built in functions of their own, out of the paths that
// may return them, so that those paths stay small enough to inline.

func (r *Rules) revokedErr(node int) error {
	return fmt.Errorf("%w: node %d: %s", snowlab.ErrNoReservation, node, r.grant.Why())
}

func (r *Rules) unreservedErr(tick int64, node int) error {
	if r.grant.Revoked() {
		return r.revokedErr(node)
	}
	return fmt.Errorf("%w: node %d: tick %d (%v) ends after the reservation's end %v",
		snowlab.ErrNoReservation, node, tick, time.Unix(0, r.tickStart(tick)).UTC(), r.reservationEnd())
}

func (r *Rules) overflowErr(ns, tick int64, node int) error {
	return fmt.Errorf("%w: node %d: tick %d (%v) is outside the layout's window [%v, %v)",
		snowlab.ErrOverflow, node, tick, time.Unix(0, ns).UTC(), r.layout.Epoch, r.layout.Horizon())
}

// refuseErr describes a refusal: a Strict clock that went back further
// than MaxWait, or a Monotonic logical clock that runs ahead of the clock
// by more than MaxLead plus MaxWait (the clock went back under it).
func (r *Rules) refuseErr(s uint64, now int64, node int) error {
	t, _ := r.unpack(s)
	if r.monotonic {
		return fmt.Errorf("%w: node %d: the clock is %v behind the last tick issued (tick %d after %d): more than MaxLead %v plus MaxWait %v",
			snowlab.ErrClockBackwards, node, time.Duration((t-now)*r.unitNs), now, t, time.Duration(r.leadTicks*r.unitNs), r.maxWait())
	}
	return fmt.Errorf("%w: node %d: clock went back %v (tick %d after %d), more than MaxWait %v",
		snowlab.ErrClockBackwards, node, time.Duration((t-now)*r.unitNs), now, t, r.maxWait())
}

// reservationEnd describes Fence.Until for an error message.
func (r *Rules) reservationEnd() string {
	if r.grant.Revoked() {
		return "(revoked: " + r.grant.Why() + ")"
	}
	return time.Unix(0, r.grant.Until()).UTC().String()
}

func (r *Rules) maxWait() time.Duration {
	if r.maxWaitNs < 0 {
		return 0
	}
	return time.Duration(r.maxWaitNs)
}

// fill writes count consecutive IDs starting at offset n of tick t: runs of
// one tick are plain increments.
func (r *Rules) fill(dst []snowlab.ID, t int64, n uint64, sp Space) {
	for len(dst) > 0 {
		if n == sp.cap {
			t, n = t+1, 0
		}
		run := sp.cap - n
		if uint64(len(dst)) < run {
			run = uint64(len(dst))
		}
		id := r.compose(t, n, sp)
		for i := range dst[:run] {
			dst[i] = id + snowlab.ID(i)
		}
		dst = dst[run:]
		n += run
	}
}
