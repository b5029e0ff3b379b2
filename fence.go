package snowlab

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// A Fence is the reserved-until window of a range of node ids, shared
// between the lease that holds them and the generators that mint with them.
// It keeps restarted, paused and rebuilt holders from reusing time that was
// or may have been spent:
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
//   - LastEnd is the end of the latest tick any generator on the fence has
//     claimed. A generator built on the fence starts after it, so
//     generators built one after another from one lease never repeat each
//     other, and a lease stores it on a graceful release, so a successor
//     waits only for time really used (and a holder that minted nothing
//     does not push the reservation forward).
//   - Nodes is the range of node ids the lease holds: a generator that
//     would mint on an id outside it is refused with ErrInvalidNode.
//
// Each generator takes a Grant on the node ids it mints with. A new grant
// stops every earlier grant on an overlapping range (ErrNoReservation):
// two live generators on one node id would repeat each other, so the
// newest one wins and the older one refuses instead.
type Fence struct {
	floor        int64
	first, count int // node ids held; count 0: any

	until atomic.Int64 // the lease's durable reservation; math.MinInt64 once revoked
	used  atomic.Int64 // latest tick end any grant has claimed

	mu     sync.Mutex // orders Extend, Revoke and Grant
	grants []*Grant   // live grants, each with a copy of until
}

// revoked is the Until of a revoked fence or grant: every tick ends after it.
const revoked = math.MinInt64

// NewFence returns a fence with the predecessor's reserved-until floor and
// this holder's first reservation until (both Unix nanoseconds; 0 floor for
// none), for any node id. A lease uses NewFenceFor.
func NewFence(floor, until int64) *Fence {
	f := &Fence{floor: floor}
	f.until.Store(until)
	f.used.Store(floor)
	return f
}

// NewFenceFor is NewFence for the count node ids first..first+count-1 only.
func NewFenceFor(first, count int, floor, until int64) *Fence {
	f := NewFence(floor, until)
	f.first, f.count = first, count
	return f
}

// Floor is the instant no ID may precede, in Unix nanoseconds.
func (f *Fence) Floor() int64 { return f.floor }

// Until is the end of the reservation, in Unix nanoseconds.
func (f *Fence) Until() int64 { return f.until.Load() }

// Nodes is the range of node ids the fence covers; ok is false when it
// covers any.
func (f *Fence) Nodes() (first, count int, ok bool) { return f.first, f.count, f.count > 0 }

// Extend moves Until forward to until, which must already be durable in the
// lease's store. A value at or before the current Until is ignored: the
// reservation never shrinks while held.
func (f *Fence) Extend(until int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur := f.until.Load()
	if until <= cur || cur == revoked {
		return
	}
	f.until.Store(until)
	for _, g := range f.grants {
		if g.until.Load() != revoked {
			g.until.Store(until)
		}
	}
}

// Revoke ends the reservation at once: every later call of every generator
// using the fence fails with ErrNoReservation. A lease revokes when it
// learns it is lost, and when it is released.
func (f *Fence) Revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.until.Store(revoked)
	for _, g := range f.grants {
		g.until.Store(revoked)
	}
	f.grants = nil
}

// Revoked reports whether Revoke was called.
func (f *Fence) Revoked() bool { return f.until.Load() == revoked }

// DefaultMaxFloorWait is how long a generator's constructor waits for its
// clock to pass the previous holder's reservation when Config.MaxFloorWait
// is 0.
const DefaultMaxFloorWait = 10 * time.Second

// LastEnd is the latest tick end (Unix nanoseconds) any generator on the
// fence has claimed, at least Floor. After Revoke it is final: a generator
// records a tick before it installs it and hands out an ID only if its
// grant was not revoked after that, so every ID ever handed out ends at or
// before LastEnd.
func (f *Fence) LastEnd() int64 { return max(f.floor, f.used.Load()) }

// Grant gives a generator the right to mint on the count node ids
// first..first+count-1 under the fence. It stops every live grant whose
// range overlaps (their next calls fail with ErrNoReservation), and it
// fails with ErrInvalidNode when the range reaches outside Nodes, or with
// ErrNoReservation when the fence is revoked. The new generator must start
// after LastEnd read after Grant returns.
func (f *Fence) Grant(first, count int) (*Grant, error) {
	if err := f.CheckGrant(first, count); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	until := f.until.Load()
	if until == revoked {
		return nil, fmt.Errorf("%w: the lease on the node ids was lost or released", ErrNoReservation)
	}
	live := f.grants[:0]
	for _, g := range f.grants {
		if first < g.first+g.count && g.first < first+count {
			g.superseded.Store(true)
			g.until.Store(revoked)
			continue
		}
		live = append(live, g)
	}
	clear(f.grants[len(live):])
	g := &Grant{fence: f, first: first, count: count}
	g.until.Store(until)
	f.grants = append(live, g)
	return g, nil
}

// CheckGrant reports the error Grant(first, count) would fail with now,
// without taking a grant or stopping any: ErrInvalidNode when the range
// reaches outside Nodes, ErrNoReservation when the fence is revoked. A
// generator's constructor checks before it waits for the clock, and takes
// the grant only once it will not refuse, so that a constructor that
// refuses leaves the earlier generator on the node ids running.
func (f *Fence) CheckGrant(first, count int) error {
	if f.count > 0 && (first < f.first || count < 1 || count > f.count || first-f.first > f.count-count) {
		return fmt.Errorf("%w: %s are not held: the lease holds %s",
			ErrInvalidNode, nodeRange(first, count), nodeRange(f.first, f.count))
	}
	if f.Revoked() {
		return fmt.Errorf("%w: the lease on the node ids was lost or released", ErrNoReservation)
	}
	return nil
}

func nodeRange(first, count int) string {
	if count == 1 {
		return fmt.Sprintf("node id %d", first)
	}
	return fmt.Sprintf("node ids %d..%d", first, first+count-1)
}

// A Grant is one generator's right to mint under a Fence (see
// Fence.Grant). Its Until is the fence's, or revoked once the fence is or
// a newer grant on the same node ids replaced it: one atomic load tells a
// generator both how far it may mint and whether it still may.
//
// Users never hold one: a generator built from a lease's Config takes its
// own. It is exported only because the engine that takes grants is another
// package of this module, and the fence's state lives here.
type Grant struct {
	until        atomic.Int64
	superseded   atomic.Bool
	fence        *Fence
	first, count int
}

// Until is the end of the reservation in Unix nanoseconds, or
// math.MinInt64 once the grant is revoked.
func (g *Grant) Until() int64 { return g.until.Load() }

// Revoked reports whether the grant may no longer mint.
func (g *Grant) Revoked() bool { return g.until.Load() == revoked }

// Use records that the generator is about to install a tick ending at end
// (Unix nanoseconds). It must be called before the tick is installed, so
// that LastEnd covers every ID that any caller may take from it.
func (g *Grant) Use(end int64) {
	used := &g.fence.used
	for {
		cur := used.Load()
		if end <= cur || used.CompareAndSwap(cur, end) {
			return
		}
	}
}

// Fence is the fence the grant was taken on.
func (g *Grant) Fence() *Fence { return g.fence }

// Why describes a revoked grant for an error message.
func (g *Grant) Why() string {
	if g.superseded.Load() {
		return fmt.Sprintf("a newer generator took %s on the same lease", nodeRange(g.first, g.count))
	}
	return "the lease on the node id was lost or released"
}
