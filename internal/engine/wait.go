package engine

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/mono"
)

// waiter bounds the waits of one call. The bound is MaxWait (plus one tick
// when waiting for a new tick), measured on the monotonic clock, and it
// starts again whenever the generator's clock reaches a tick it had not
// reached before: a batch spanning many ticks, or a caller losing races
// while time moves on, is making progress and is not refused.
type waiter struct {
	deadline int64 // monotonic ns; 0 before the first wait
	seen     int64 // highest tick read while waiting
	target   int64 // tick the current wait is for, to count waits once
	expired  bool  // the bound passed; the next wait without progress refuses
}

func (w *waiter) wait(r *Rules, p plan, now, ns int64, l *ledger) error {
	m := mono.Now()
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

// pause sleeps about d nanoseconds without oversleeping a tick. Go's timers
// round a sub-millisecond sleep up to about a millisecond when the
// scheduler is idle, which would cost a waiting caller a whole tick; a
// nanosleep system call wakes within the kernel's timer slack (about 50 µs)
// and hands the P to other goroutines while it blocks; the last stretch
// yields instead of sleeping.
func pause(d int64) {
	const (
		timerSlop = int64(1200 * time.Microsecond)
		slack     = int64(70 * time.Microsecond)
	)
	switch {
	case d > 2*timerSlop:
		time.Sleep(time.Duration(d - timerSlop))
	case d > 2*slack:
		nanosleep(d - slack)
	default:
		runtime.Gosched()
	}
}

// addSat is a+b for b >= 0, held at math.MaxInt64 instead of wrapping: a
// MaxWait of math.MaxInt64 means "wait as long as it takes", not a
// deadline in the past.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
