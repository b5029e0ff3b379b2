package engine

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/snowlab/snowlab"
)

// waiter bounds the waits of one call. The bound is MaxWait (plus one tick
// when waiting for a new tick), measured on the monotonic clock (elapsed), and it
// starts again whenever the generator's clock reaches a tick it had not
// reached before: a batch spanning many ticks, or a caller losing races
// while time moves on, is making progress and is not refused.
type waiter struct {
	deadline int64 // elapsed ns; 0 before the first wait
	seen     int64 // highest tick read while waiting
	target   int64 // tick the current wait is for, to count waits once
	expired  bool  // the bound passed; the next wait without progress refuses
	// fence is when the call's waits for the reservation end (elapsed
	// ns; set at the first, fenced): MaxWait after the first, whatever
	// the clock does meanwhile.
	fence  int64
	fenced bool
}

func (w *waiter) wait(r *Rules, p plan, now, ns int64, l *ledger) error {
	m := elapsed()
	budget := r.maxWait().Nanoseconds()
	if p.act == waitTick {
		budget = addSat(budget, r.unitNs)
	}
	first := w.deadline == 0
	switch {
	case first || now > w.seen:
		w.deadline, w.seen, w.expired = addSat(m, budget), now, false
	case m >= w.deadline && w.expired:
		l.ctr.refusals.Add(1)
		return fmt.Errorf("%w: node %d: clock stuck at tick %d for %v, waiting for tick %d",
			snowlab.ErrClockBackwards, l.space.node, now, time.Duration(budget), p.tick)
	case m >= w.deadline:
		// Read the clock once more before refusing: a caller that was
		// descheduled past its deadline should not blame the clock.
		w.expired = true
		return nil
	}
	if first || w.target != p.tick {
		w.target = p.tick
		if p.act == waitTick {
			l.ctr.tickWaits.Add(1)
		} else {
			l.ctr.rewindWaits.Add(1)
		}
	}
	pause(min(r.tickStart(p.tick)-ns, w.deadline-m))
	return nil
}

// waitFence waits for the lease to move the reservation past tick
// p.tick, which a Monotonic generator's logical clock has reached (see
// planMonotonic): one tick at a time, and for at most MaxWait from the
// call's first such wait, after which the call refuses with
// ErrNoReservation, as it did at once before it waited. The clock moving
// on does not renew the bound, as it does a tick's: the logical clock is
// ahead of it, and only the lease's refresh can end this wait. A
// negative MaxWait refuses at once. Each wait counts as a tick wait.
func (w *waiter) waitFence(r *Rules, p plan, l *ledger) error {
	m := elapsed()
	if !w.fenced {
		w.fence, w.fenced = addSat(m, r.maxWait().Nanoseconds()), true
		l.ctr.tickWaits.Add(1)
	}
	if m >= w.fence {
		return fmt.Errorf("%w (waited MaxWait %v for the lease to move it)", r.unreservedErr(p.tick, l.space.node), r.maxWait())
	}
	pause(min(r.unitNs, w.fence-m))
	return nil
}

// pause sleeps about d nanoseconds without oversleeping a tick. Go's timers
// round a sub-millisecond sleep up to about a millisecond when the
// scheduler is idle, which would cost a waiting caller a whole tick; a
// nanosleep system call wakes within the kernel's timer slack (about 50 µs)
// and hands the P to other goroutines while it blocks; the last stretch
// yields instead of sleeping.
//
// Inside a testing/synctest bubble time moves only when every goroutine
// in it blocks, which neither a yield nor a nanosleep does: a caller
// would spin on a clock that never moves. So a short pause first yields
// once and looks at the clock: when it has not moved at all (a bubble;
// outside one, two readings of the monotonic clock around a yield are
// tens of nanoseconds apart), it sleeps on Go's timers, which a bubble
// fakes exactly. A clock too coarse to tell takes the same path and only
// sleeps less precisely. This costs a yield and two clock readings per
// wait, against a wait of at least 140 µs; NextID's fast path never
// pauses.
func pause(d int64) {
	const (
		timerSlop = int64(1200 * time.Microsecond)
		slack     = int64(70 * time.Microsecond)
	)
	if d > 2*timerSlop {
		time.Sleep(time.Duration(d - timerSlop))
		return
	}
	t0 := elapsed()
	runtime.Gosched()
	switch {
	case elapsed() == t0:
		time.Sleep(time.Duration(max(d, 1)))
	case d > 2*slack:
		nanosleep(d - slack)
	}
}

// base is the origin of elapsed.
var base = time.Now()

// elapsed is the time since base on the monotonic clock, in nanoseconds:
// what waits are bounded by. Outside a testing/synctest bubble it is
// runtime.nanotime's reading less a constant; inside one, time.Since
// reads the bubble's virtual clock (by wall time: a bubble's times carry
// no monotonic reading), so a test can drive MaxWait and MaxFloorWait.
// Only a pair of readings within one call is ever compared.
func elapsed() int64 { return int64(time.Since(base)) }

// addSat is a+b for b >= 0, held at math.MaxInt64 instead of wrapping: a
// MaxWait of math.MaxInt64 means "wait as long as it takes", not a
// deadline in the past.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
