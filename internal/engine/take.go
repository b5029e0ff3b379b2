package engine

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
)

// Cell holds a state word. *atomic.Uint64 is the lock-free cell; a
// generator behind a lock may use a plain word whose CompareAndSwap always
// succeeds.
type Cell interface {
	Load() uint64
	CompareAndSwap(old, new uint64) bool
}

// Next is the single-ID fast path for an atomic cell. When the word's tick
// may still be used (the clock is in it, or, for Monotonic, behind it
// within MaxLead) it reserves one sequence value with a fetch-add, which
// cannot fail and so cannot retry (or with a compare-and-swap where the
// layout leaves no room for fetch-add's overshoot); when the clock has
// moved to a new tick it claims that tick with one compare-and-swap.
// Everything else (a spent tick, a rewind, the window's end or the
// reservation's, a lost race) goes through take.
func (r *Rules) Next(c *atomic.Uint64, sp Space, ctr *Counters) (snowlab.ID, error) {
	s := c.Load()
	// The clock read and the tick are written out here rather than
	// called through now: this is the path every ID takes, and each
	// call that does not inline is a measurable share of it.
	var ns int64
	if r.anchored != nil {
		ns = r.anchored.UnixNano()
	} else {
		ns = r.clock.UnixNano()
	}
	var now int64
	if d := ns - r.epochNs; d >= 0 && r.unitNs == int64(time.Millisecond) {
		now = d / int64(time.Millisecond)
	} else {
		now = r.tickOf(ns)
	}
	t := int64(s >> r.nShift)
	var id snowlab.ID
	switch {
	case now <= t && s&r.nMask < sp.cap && (now == t || r.reusable(t, now)) && !r.fenced(t):
		// The tick in the word may still be used: reserve one value.
		if r.addOK {
			old := c.Add(1) - 1
			// The word may have moved on since the load. Whatever tick it
			// holds was installed by a caller whose clock had reached it
			// (or, for Monotonic, came within its lead) before this add,
			// so an unspent count there is as good an ID as the one
			// aimed at.
			if n := old & r.nMask; n < sp.cap {
				id = r.compose(int64(old>>r.nShift), n, sp)
				break
			}
		} else if c.CompareAndSwap(s, s+1) {
			id = r.compose(t, s&r.nMask, sp)
			break
		} else {
			ctr.casRetries.Add(1)
		}
		return r.nextSlow(c, sp, ctr)
	case now > t && now <= r.maxTick && !r.fenced(now):
		// The clock reached a new tick: claim it.
		r.use(now)
		if !c.CompareAndSwap(s, r.pack(now, 1)) {
			ctr.casRetries.Add(1)
			return r.nextSlow(c, sp, ctr)
		}
		id = r.compose(now, 0, sp)
	default:
		var one [1]snowlab.ID
		_, err := r.take(c, sp, ctr, one[:], s, now, ns, true)
		return one[0], err
	}
	// Handed out only if the grant was not revoked after the tick was
	// claimed: that is what lets Fence.LastEnd, read after a revocation,
	// cover every ID ever handed out.
	if r.revoked() {
		return 0, r.revokedErr(sp.node)
	}
	return id, nil
}

// nextSlow is Next after a lost race: the plan, read afresh.
func (r *Rules) nextSlow(c *atomic.Uint64, sp Space, ctr *Counters) (snowlab.ID, error) {
	var one [1]snowlab.ID
	_, err := r.Take(c, sp, ctr, one[:])
	return one[0], err
}

// reusable reports whether a Monotonic generator whose clock reads now may
// keep issuing from tick t > now: the logical clock is ahead, within the
// lead.
func (r *Rules) reusable(t, now int64) bool {
	return r.monotonic && now >= 0 && (!r.leadBound || t-now <= r.leadTicks)
}

// Take fills dst with IDs from space sp, whose state word is c. Each
// round reserves as many IDs as the plan allows with one CompareAndSwap:
// for Monotonic a whole batch at once, for Strict the rest of the current
// tick. It returns how many IDs it wrote; fewer than len(dst) comes with an
// error.
func (r *Rules) Take(c Cell, sp Space, ctr *Counters, dst []snowlab.ID) (int, error) {
	s := c.Load() // state first, clock after: a stale reading is never a rewind
	now, ns := r.now()
	return r.take(c, sp, ctr, dst, s, now, ns, true)
}

// TakeAvailable is Take without waiting: it fills dst with what the space
// can give now (for Strict, the rest of the current tick) and returns as
// soon as the next ID would need a wait, with no error. A sharded generator
// uses it to drain every shard's current tick before it waits on one.
func (r *Rules) TakeAvailable(c Cell, sp Space, ctr *Counters, dst []snowlab.ID) (int, error) {
	s := c.Load()
	now, ns := r.now()
	return r.take(c, sp, ctr, dst, s, now, ns, false)
}

// take is Take with the first state word and the clock reading taken after
// it already in hand, so a call that falls off the fast path does not read
// the clock twice.
func (r *Rules) take(c Cell, sp Space, ctr *Counters, dst []snowlab.ID, s uint64, now, ns int64, wait bool) (int, error) {
	var w waiter
	done := 0
	for round := 0; done < len(dst); round++ {
		if round > 0 {
			s = c.Load()
			now, ns = r.now()
		}
		p := r.plan(s, now, len(dst)-done, sp.cap)
		switch p.act {
		case issue:
			if t, _ := r.unpack(p.next); t > int64(s>>r.nShift) {
				r.use(t)
			}
			if c.CompareAndSwap(s, p.next) {
				if r.revoked() {
					return done, r.revokedErr(sp.node)
				}
				r.fill(dst[done:done+p.count], p.tick, p.n, sp)
				done += p.count
			} else {
				ctr.casRetries.Add(1)
			}
		case waitTick, waitRewind:
			if !wait {
				return done, nil
			}
			if err := w.wait(r, p, now, ns, sp, ctr); err != nil {
				return done, err
			}
		case refuse:
			ctr.refusals.Add(1)
			return done, r.refuseErr(s, now, sp)
		case unreserved:
			return done, fmt.Errorf("%w: node %d: tick %d (%v) ends after the reservation's end %v",
				snowlab.ErrNoReservation, sp.node, p.tick, time.Unix(0, r.tickStart(p.tick)).UTC(), r.reservationEnd())
		case overflow:
			return done, fmt.Errorf("%w: node %d: tick %d (%v) is outside the layout's window [%v, %v)",
				snowlab.ErrOverflow, sp.node, p.tick, time.Unix(0, ns).UTC(), r.layout.Epoch, r.layout.Horizon())
		}
	}
	return done, nil
}

func (r *Rules) revoked() bool { return r.grant != nil && r.grant.Revoked() }

func (r *Rules) revokedErr(node int) error {
	return fmt.Errorf("%w: node %d: %s", snowlab.ErrNoReservation, node, r.grant.Why())
}

// refuseErr describes a refusal: a Strict clock that went back further
// than MaxWait, or a Monotonic logical clock that runs ahead of the clock
// by more than MaxLead plus MaxWait (the clock went back under it).
func (r *Rules) refuseErr(s uint64, now int64, sp Space) error {
	t, _ := r.unpack(s)
	if r.monotonic {
		return fmt.Errorf("%w: node %d: the clock is %v behind the last tick issued (tick %d after %d): more than MaxLead %v plus MaxWait %v",
			snowlab.ErrClockBackwards, sp.node, time.Duration((t-now)*r.unitNs), now, t, time.Duration(r.leadTicks*r.unitNs), r.maxWait())
	}
	return fmt.Errorf("%w: node %d: clock went back %v (tick %d after %d), more than MaxWait %v",
		snowlab.ErrClockBackwards, sp.node, time.Duration((t-now)*r.unitNs), now, t, r.maxWait())
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
