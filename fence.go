package snowlab

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// A Fence is the reserved-until window of a node id, shared between the
// lease that holds the id and the generators that mint with it. It keeps
// restarted and paused holders from reusing time their predecessor or
// successor spent:
//
//   - Floor is the previous holder's reserved-until: no ID carries a time
//     before it, so a successor whose clock is behind its predecessor's
//     last ID cannot repeat it.
//   - Until is how far this holder has reserved: every ID's tick ends at or
//     before it, and the lease moves it forward only after the new value is
//     durable in its store. A holder that cannot reach its store, or that
//     was frozen past its reservation while a successor took over, stops
//     at Until with ErrNoReservation instead of minting into time another
//     holder may use.
//
// Generators read Until from one atomic word on every call; a nil *Fence in
// Config means no reservation (a static node id).
type Fence struct {
	floor int64
	until atomic.Int64

	mu       sync.Mutex
	trackers []func() int64
}

// NewFence returns a fence with the predecessor's reserved-until floor and
// this holder's first reservation until (both Unix nanoseconds; 0 floor for
// none).
func NewFence(floor, until int64) *Fence {
	f := &Fence{floor: floor}
	f.until.Store(until)
	return f
}

// Floor is the instant no ID may precede, in Unix nanoseconds.
func (f *Fence) Floor() int64 { return f.floor }

// Until is the end of the reservation, in Unix nanoseconds.
func (f *Fence) Until() int64 { return f.until.Load() }

// Extend moves Until forward to until, which must already be durable in the
// lease's store. A value at or before the current Until is ignored: the
// reservation never shrinks while held.
func (f *Fence) Extend(until int64) {
	for {
		cur := f.until.Load()
		if until <= cur || cur == math.MinInt64 || f.until.CompareAndSwap(cur, until) {
			return
		}
	}
}

// Revoke ends the reservation at once: every later call of every generator
// using the fence fails with ErrNoReservation. A lease revokes when it
// learns it is lost.
func (f *Fence) Revoke() { f.until.Store(math.MinInt64) }

// Revoked reports whether Revoke was called.
func (f *Fence) Revoked() bool { return f.until.Load() == math.MinInt64 }

// DefaultMaxFloorWait is how long a generator's constructor waits for its
// clock to pass the previous holder's reservation when Config.MaxFloorWait
// is 0.
const DefaultMaxFloorWait = 10 * time.Second

// Track registers last, which reports the end (Unix nanoseconds) of the
// last tick a generator has claimed. Generators call it when they are
// built with this fence; LastEnd reads them all.
func (f *Fence) Track(last func() int64) {
	f.mu.Lock()
	f.trackers = append(f.trackers, last)
	f.mu.Unlock()
}

// LastEnd is the latest tick end any tracked generator has claimed, at
// least Floor; ok is false when no generator is tracked (nothing is known).
// After Revoke it is final: a generator hands out an ID only if the fence
// was not revoked after the ID's tick was claimed, so every ID ever handed
// out ends at or before LastEnd. A lease stores it as the node id's
// reserved-until on a graceful release, so that a successor waits only for
// the time that was really used.
func (f *Fence) LastEnd() (end int64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	end = f.floor
	for _, last := range f.trackers {
		end = max(end, last())
	}
	return end, len(f.trackers) > 0
}
