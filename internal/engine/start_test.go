package engine_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/mutexgen"
)

// TestRefusedBuildKeepsEarlierGenerator: a constructor that refuses (its
// clock is behind the fence's LastEnd by more than MaxFloorWait) takes no
// grant, so the generator already minting on the node id keeps minting.
// Before Prepare waited for the clock ahead of the grant, the refused
// constructor had already stopped it (ErrNoReservation, "a newer
// generator took node id 3"), leaving the node id with no generator.
func TestRefusedBuildKeepsEarlierGenerator(t *testing.T) {
	epoch := snowlab.DefaultLayout.Epoch.UnixNano()
	now := epoch + int64(time.Hour)
	f := snowlab.NewFenceFor(3, 1, 0, now+int64(time.Minute))
	old, err := mutexgen.New(snowlab.Config{Node: 3, Fence: f, Clock: clocksrc.Func(func() int64 { return now })})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.NextID(); err != nil {
		t.Fatal(err)
	}
	behind := clocksrc.Func(func() int64 { return now - int64(time.Second) }) // behind the old one's tick
	_, err = atomicgen.New(snowlab.Config{Node: 3, Fence: f, Clock: behind, MaxFloorWait: time.Millisecond})
	if !errors.Is(err, snowlab.ErrClockBackwards) {
		t.Fatalf("a constructor 1 s behind LastEnd with MaxFloorWait 1ms: %v, want ErrClockBackwards", err)
	}
	if _, err := old.NextID(); err != nil {
		t.Fatalf("the earlier generator after a refused build: %v, want an ID", err)
	}
	// A constructor that succeeds still stops it.
	if _, err := atomicgen.New(snowlab.Config{Node: 3, Fence: f, Clock: clocksrc.Func(func() int64 { return now + int64(time.Millisecond) })}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.NextID(); !errors.Is(err, snowlab.ErrNoReservation) {
		t.Fatalf("the earlier generator after a newer one was built: %v, want ErrNoReservation", err)
	}
}

// TestBuildAfterEarlierGeneratorMovedOn: when the earlier generator claims
// a tick while the constructor waits for the clock (here: during its
// clock read), the constructor, past the point where it could still leave
// the earlier one its grant, does not refuse; its IDs come after every ID
// the earlier one handed out, and until its clock gets there it refuses as
// after a clock step back.
func TestBuildAfterEarlierGeneratorMovedOn(t *testing.T) {
	epoch := snowlab.DefaultLayout.Epoch.UnixNano()
	now := epoch + int64(time.Hour)
	f := snowlab.NewFenceFor(3, 1, 0, now+int64(time.Minute))
	oldNow := now
	old, err := mutexgen.New(snowlab.Config{Node: 3, Fence: f, Clock: clocksrc.Func(func() int64 { return oldNow })})
	if err != nil {
		t.Fatal(err)
	}
	var last snowlab.ID
	reads := 0
	clock := clocksrc.Func(func() int64 {
		if reads++; reads == 1 { // the constructor's read: the old one mints 5 ticks on
			oldNow = now + 5*int64(time.Millisecond)
			if last, err = old.NextID(); err != nil {
				t.Fatal(err)
			}
		}
		return now + int64(time.Millisecond) + int64(reads-1)*int64(time.Millisecond)
	})
	g, err := mutexgen.New(snowlab.Config{Node: 3, Fence: f, Clock: clock, MaxWait: -1, MaxFloorWait: -1})
	if err != nil {
		t.Fatalf("a build whose predecessor moved on during its wait: %v, want a generator", err)
	}
	var id snowlab.ID
	for i := 0; ; i++ {
		if id, err = g.NextID(); err == nil {
			break
		}
		if !errors.Is(err, snowlab.ErrClockBackwards) || i > 10 {
			t.Fatalf("call %d: %v, want ErrClockBackwards until the clock passes the earlier generator's tick", i, err)
		}
	}
	if id <= last {
		t.Fatalf("the new generator's first ID %d is not above the earlier one's last %d", id, last)
	}
	if _, err := old.NextID(); !errors.Is(err, snowlab.ErrNoReservation) {
		t.Fatalf("the earlier generator: %v, want ErrNoReservation", err)
	}
}

// TestRevokedRefusesAtOnce: a generator whose fence is revoked refuses
// with ErrNoReservation on its next call, without waiting, even when its
// tick is used up (it would wait for the next) or its clock went back (it
// would wait the rewind out or refuse with ErrClockBackwards). Before plan
// looked at the grant first, a Strict generator with a spent tick waited
// a tick (TickWaits 1) and then returned ErrClockBackwards.
func TestRevokedRefusesAtOnce(t *testing.T) {
	epoch := snowlab.DefaultLayout.Epoch.UnixNano()
	for _, back := range []int64{0, int64(5 * time.Millisecond)} {
		for _, kind := range []struct {
			name  string
			build func(snowlab.Config) (snowlab.Generator, error)
		}{
			{"mutexgen", func(c snowlab.Config) (snowlab.Generator, error) { return mutexgen.New(c) }},
			{"atomicgen", func(c snowlab.Config) (snowlab.Generator, error) { return atomicgen.New(c) }},
		} {
			name, build := kind.name, kind.build
			now := epoch + int64(time.Hour)
			f := snowlab.NewFence(0, now+int64(time.Minute))
			g, err := build(snowlab.Config{Fence: f, Clock: clocksrc.Func(func() int64 { return now }), MaxWait: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]snowlab.ID, snowlab.DefaultLayout.MaxSeq()+1)
			if n, err := g.NextIDs(ids); err != nil || n != len(ids) {
				t.Fatalf("%s: the whole tick: %d IDs, %v", name, n, err)
			}
			f.Revoke()
			now -= back
			if _, err := g.NextID(); !errors.Is(err, snowlab.ErrNoReservation) {
				t.Fatalf("%s, clock back %v: a revoked generator with its tick spent: %v, want ErrNoReservation", name, time.Duration(back), err)
			}
			if s := g.Stats(); s.TickWaits+s.RewindWaits != 0 {
				t.Fatalf("%s, clock back %v: a revoked generator waited: %+v", name, time.Duration(back), s)
			}
		}
	}
}

// TestStartReadsTheClockBeforeRefusing: a constructor whose last clock
// reading before MaxFloorWait ran out was behind the start, and which was
// then held up past the deadline (here inside that very read, on
// testing/synctest's virtual time), reads the clock once more before it
// refuses: the clock has passed the start by then, so it builds. It
// refused before ("the clock did not pass the node id's start"), a 5 s
// stall at that point on a loaded machine blaming a clock that was fine.
func TestStartReadsTheClockBeforeRefusing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wait = 50 * time.Millisecond
		epoch := snowlab.DefaultLayout.Epoch.UnixNano()
		start := epoch + int64(time.Hour)
		t0 := time.Now()
		stalled := false
		clock := clocksrc.Func(func() int64 {
			since := time.Since(t0)
			if since < wait {
				// Behind the start until the wait's end; the reading
				// taken just before the deadline returns late.
				if since >= wait-2*time.Millisecond && !stalled {
					stalled = true
					time.Sleep(5 * time.Second)
				}
				return start - int64(time.Millisecond)
			}
			return start + int64(since-wait)
		})
		f := snowlab.NewFenceFor(3, 1, start, start+int64(time.Hour))
		if _, err := atomicgen.New(snowlab.Config{Node: 3, Fence: f, Clock: clock, MaxFloorWait: wait}); err != nil {
			t.Fatalf("a constructor whose clock passed the start while it was held up: %v", err)
		}
		if !stalled {
			t.Fatal("the clock's stalled reading was never taken: the test proves nothing")
		}
	})
}
