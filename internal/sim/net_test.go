package sim

import (
	"context"
	"fmt"
	"time"
)

// call carries one operation to the store and its reply back, with the
// faults the schedule draws: a delay each way, a partition or a store that
// is down (the request never applies), a store crash between the write
// and its flush (the write is lost and the reply never comes), and a lost
// reply (the write happened, the caller is told it failed). A durable
// write (sync) is acknowledged only after it is flushed; the async-commit
// mutant acknowledges reservations before.
func (c *client) call(ctx context.Context, op string, sync bool, apply func(*store) error) error {
	h, w := c.h, c.h.w
	h.waitPause()
	w.mu.Lock()
	d1, d2, dSync := h.netDelay(), h.netDelay(), time.Duration(h.srng.IntN(300))*quantum
	lost := h.srng.IntN(100) < 3
	w.trace("h%d %s sent", h.id, op)
	w.mu.Unlock()
	if err := sleepCtx(ctx, d1); err != nil {
		return fmt.Errorf("sim: %s: %w", op, err)
	}
	w.mu.Lock()
	inc, err := c.apply(op, apply)
	w.mu.Unlock()
	if err != nil {
		return err
	}
	if sync {
		sleep(dSync)
		w.mu.Lock()
		ok := w.st.inc == inc
		if ok {
			w.st.flush()
		}
		w.mu.Unlock()
		if !ok {
			return fmt.Errorf("sim: %s: %w", op, errConnReset)
		}
	}
	if err := sleepCtx(ctx, d2); err != nil {
		return fmt.Errorf("sim: %s: %w", op, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case c.inc != h.inc:
		return fmt.Errorf("sim: %s: %w", op, errCrashed)
	case w.st.inc != inc:
		return fmt.Errorf("sim: %s: %w", op, errConnReset)
	case lost && !w.done:
		w.stats.lostReplies++
		w.trace("h%d %s reply lost", h.id, op)
		return fmt.Errorf("sim: %s: %w", op, errLostReply)
	}
	return nil
}

// apply runs the operation at the store, unless the request cannot reach
// it; under mu. It returns the store's incarnation the write went to, and
// apply's own error (ErrNoFreeNode) as the reply.
func (c *client) apply(op string, apply func(*store) error) (int, error) {
	h, w, s := c.h, c.h.w, c.h.w.st
	t := now()
	switch {
	case c.inc != h.inc:
		return 0, fmt.Errorf("sim: %s: %w", op, errCrashed)
	case t < h.partUntil:
		return 0, fmt.Errorf("sim: %s: %w", op, errPartitioned)
	case t < s.downUntil:
		return 0, fmt.Errorf("sim: %s: %w", op, errDown)
	}
	if w.bug == bugAsyncCommit && t-s.lastFlush >= s.asyncFlushEvery() {
		s.flush()
	}
	err := apply(s)
	w.trace("h%d %s applied err=%v", h.id, op, err)
	return s.inc, err
}

// netDelay is one leg's delay: mostly tens of microseconds, sometimes a
// few milliseconds, rarely longer than a refresh; under mu.
func (h *holder) netDelay() time.Duration {
	switch r := h.srng.IntN(100); {
	case r < 85:
		return time.Duration(10+h.srng.IntN(200)) * quantum
	case r < 98:
		return time.Duration(1+h.srng.IntN(5)) * time.Millisecond
	default:
		return time.Duration(1+h.srng.IntN(3)) * h.w.p.window / 3
	}
}

// sleepCtx sleeps d (whole quanta), or until ctx is done. A sleep that
// would end at ctx's deadline is made a quantum longer, so that the two
// never fire at one instant.
func sleepCtx(ctx context.Context, d time.Duration) error {
	d = max((d+quantum-1)/quantum, 1) * quantum
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(d).Equal(dl) {
		d += quantum
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
