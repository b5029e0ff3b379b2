package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// A store's own tests of an outage (its server stopped while a lease
// mints) check that the holder mints up to the last reservation the store
// acknowledged and no further. Acks and StepClock make that independent
// of the machine's load: Acks records what the store acknowledged (rather
// than reading the lease's fence, which is what is checked), and a lease
// on a StepClock mints what its reservations allow, one tick a step,
// however long the test took to stop the server. (On the real clock such
// a test had to assume the stop returned within the window and the
// holder stopped within some milliseconds of the reservation's end.)

// Acks wraps a Store and records, over the claims it hands out, the
// largest reservation a Reserve call was acknowledged for (returned nil)
// and how many Reserve calls failed.
type Acks struct {
	nodeid.Store
	mu      sync.Mutex
	durable int64
	failed  int
}

// Acquire is the wrapped store's, with the claim's Reserve recorded.
func (a *Acks) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	c, err := a.Store.Acquire(ctx, layout, count, maxNode)
	if err != nil {
		return nil, err
	}
	return ackedClaim{c, a}, nil
}

// Acked returns the largest reservation a Reserve was acknowledged for
// (Unix ns; 0 for none) and how many Reserve calls failed.
func (a *Acks) Acked() (durable int64, failed int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.durable, a.failed
}

// WaitFailure returns once a Reserve call has failed after WaitFailure
// was called. A lease's refresher reserves one call at a time, so every
// reservation it made before has then been acknowledged or not, and its
// fence moved accordingly.
func (a *Acks) WaitFailure() {
	_, n := a.Acked()
	for _, f := a.Acked(); f == n; _, f = a.Acked() {
		time.Sleep(5 * time.Millisecond)
	}
}

type ackedClaim struct {
	nodeid.Claim
	a *Acks
}

func (c ackedClaim) Reserve(ctx context.Context, until int64) error {
	err := c.Claim.Reserve(ctx, until)
	c.a.mu.Lock()
	defer c.a.mu.Unlock()
	if err != nil {
		c.a.failed++
	} else {
		c.a.durable = max(c.a.durable, until)
	}
	return err
}

// StepClock is a clock (clocksrc.Clock) that moves only when Mint moves
// it.
type StepClock struct{ ns atomic.Int64 }

// NewStepClock returns a StepClock reading start (Unix ns).
func NewStepClock(start int64) *StepClock {
	c := &StepClock{}
	c.ns.Store(start)
	return c
}

// UnixNano is the clock's reading.
func (c *StepClock) UnixNano() int64 { return c.ns.Load() }

// Mint moves the clock one tick of layout l on and mints an ID with gen,
// n times, appending each ID to ids. It stops at the first error and
// returns it, with the IDs minted.
func (c *StepClock) Mint(gen snowlab.Generator, l snowlab.Layout, n int, ids []snowlab.ID) ([]snowlab.ID, error) {
	unit := int64(l.OrDefault().Unit)
	for range n {
		c.ns.Add(unit)
		id, err := gen.NextID()
		if err != nil {
			return ids, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}
