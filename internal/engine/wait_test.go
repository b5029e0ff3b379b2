package engine_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/mutexgen"
)

// bubbleClock is a bubble's virtual clock moved by offset ns.
func bubbleClock(offset *atomic.Int64) clocksrc.Clock {
	return clocksrc.Func(func() int64 { return time.Now().UnixNano() + offset.Load() })
}

// TestWaitsOnVirtualTime: inside a testing/synctest bubble the engine's
// waits (a spent tick, a rewind, MaxWait's bound, the constructor's wait
// for the fence's floor) run on the bubble's clock, so a test drives them
// exactly. Before the waits were timed with time.Since and paused on Go's
// timers inside a bubble, they were timed on runtime.nanotime and paused
// with nanosleep and yields, which a bubble does not fake: virtual time
// stood still and every wait ended in ErrClockBackwards ("clock stuck").
func TestWaitsOnVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var off atomic.Int64
		off.Store(int64(25 * 365 * 24 * time.Hour)) // past the default epoch
		clock := bubbleClock(&off)
		start := time.Now()
		f := snowlab.NewFence(clock.UnixNano()+int64(30*time.Millisecond), clock.UnixNano()+int64(time.Hour))
		g, err := mutexgen.New(snowlab.Config{Fence: f, Clock: clock, MaxWait: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 30*time.Millisecond || d > 31*time.Millisecond {
			t.Fatalf("New waited %v for a floor 30ms ahead", d)
		}
		// A spent tick: the next ID waits for the next tick.
		ids := make([]snowlab.ID, snowlab.DefaultLayout.MaxSeq()+2)
		if n, err := g.NextIDs(ids); err != nil || n != len(ids) {
			t.Fatalf("a tick and one: %d, %v", n, err)
		}
		lay := snowlab.DefaultLayout
		if a, b := lay.Decode(ids[0]).Time, lay.Decode(ids[len(ids)-1]).Time; b.Sub(a) != time.Millisecond {
			t.Fatalf("the batch spans %v, want one tick", b.Sub(a))
		}
		// A rewind within MaxWait is waited out on virtual time.
		off.Add(-int64(10 * time.Millisecond))
		before := time.Now()
		if _, err := g.NextID(); err != nil {
			t.Fatalf("a 10ms rewind within MaxWait 20ms: %v", err)
		}
		if d := time.Since(before); d < 9*time.Millisecond || d > 11*time.Millisecond {
			t.Fatalf("the rewind took %v of virtual time, want about 10ms", d)
		}
		if s := g.Stats(); s.TickWaits != 1 || s.RewindWaits != 1 {
			t.Fatalf("stats %+v, want a tick wait and a rewind wait", s)
		}
	})
}

// TestWaitBoundOnVirtualTime: a frozen clock makes a call for a new tick
// refuse after MaxWait and the tick, measured on the bubble's clock.
func TestWaitBoundOnVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		frozen := time.Now().Add(25 * 365 * 24 * time.Hour).UnixNano()
		g, err := atomicgen.New(snowlab.Config{Clock: clocksrc.Func(func() int64 { return frozen }), MaxWait: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]snowlab.ID, snowlab.DefaultLayout.MaxSeq()+1)
		if _, err := g.NextIDs(ids); err != nil {
			t.Fatal(err)
		}
		before := time.Now()
		_, err = g.NextID()
		if !errors.Is(err, snowlab.ErrClockBackwards) {
			t.Fatalf("a frozen clock: %v, want ErrClockBackwards", err)
		}
		if d := time.Since(before); d < 6*time.Millisecond || d > 7*time.Millisecond {
			t.Fatalf("refused after %v of virtual time, want MaxWait 5ms and the 1ms tick", d)
		}
	})
}
