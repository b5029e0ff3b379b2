package nodeid_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
)

// slowClaim is a claim whose every Reserve after the first takes slow of
// virtual time, and which counts the Reserve calls that began once the
// test set releasing, just before it called Lease.Release. inSlow is
// closed when the refresher's first slow Reserve begins: the tests wait
// on it, not on a sleep that assumed the refresher's period (10 ms, a
// third of the window) had brought it there.
type slowClaim struct {
	cs        *nodeid.ClaimState
	slow      time.Duration
	inSlow    chan struct{}
	mu        sync.Mutex
	reserves  int
	releasing bool
	late      int // Reserve calls begun after releasing was set
}

func newSlowClaim() *slowClaim {
	return &slowClaim{cs: nodeid.NewClaimState("test", 0, nil), slow: 25 * time.Millisecond, inSlow: make(chan struct{})}
}

func (c *slowClaim) Acquire(context.Context, snowlab.Layout, int, int) (nodeid.Claim, error) {
	return c, nil
}
func (c *slowClaim) First() int            { return 0 }
func (c *slowClaim) Count() int            { return 1 }
func (c *slowClaim) Floor() int64          { return 0 }
func (c *slowClaim) Token() int64          { return 1 }
func (c *slowClaim) Lost() <-chan struct{} { return c.cs.Lost() }

func (c *slowClaim) Reserve(ctx context.Context, until int64) error {
	c.mu.Lock()
	c.reserves++
	first, n := c.reserves == 1, c.reserves
	if c.releasing {
		c.late++
	}
	c.mu.Unlock()
	if !first {
		if n == 2 {
			close(c.inSlow)
		}
		time.Sleep(c.slow) // past the next tick: it is pending when this returns
	}
	return nil
}

func (c *slowClaim) Release(context.Context, int64) error { return nil }

// TestReleaseDuringSlowReserve: a Release called while the refresher's
// Reserve is in flight, with the next tick already pending, ends the
// refresher when that Reserve returns; it does not start another. Before
// the refresher checked its stop channel first, Go's select chose between
// the pending tick and the stop at random, so a Release waited for one
// more round trip half the time (and internal/sim's schedules did not
// replay): 20 rounds all picking the stop by chance is one in a million.
func TestReleaseDuringSlowReserve(t *testing.T) {
	for round := range 20 {
		synctest.Test(t, func(t *testing.T) {
			c := newSlowClaim()
			clock := clocksrc.Func(func() int64 { return time.Now().UnixNano() })
			l, err := nodeid.Acquire(context.Background(), c, nodeid.Options{Window: 30 * time.Millisecond, Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			<-c.inSlow // the refresher is in its slow Reserve
			c.mu.Lock()
			c.releasing = true
			c.mu.Unlock()
			if err := l.Release(context.Background()); err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.late != 0 {
				t.Fatalf("round %d: the refresher began %d Reserve calls after Release", round, c.late)
			}
		})
	}
}

// TestLostDuringSlowReserve: a claim lost while the refresher's Reserve is
// in flight, with the next tick pending, closes the lease's Lost when
// that Reserve returns, without another Reserve.
func TestLostDuringSlowReserve(t *testing.T) {
	for round := range 20 {
		synctest.Test(t, func(t *testing.T) {
			c := newSlowClaim()
			clock := clocksrc.Func(func() int64 { return time.Now().UnixNano() })
			l, err := nodeid.Acquire(context.Background(), c, nodeid.Options{Window: 30 * time.Millisecond, Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			<-c.inSlow
			c.cs.Lose("test")
			<-l.Lost()
			c.mu.Lock()
			n := c.reserves
			c.mu.Unlock()
			if n != 2 {
				t.Fatalf("round %d: %d Reserve calls, want the first and the one in flight when the claim was lost", round, n)
			}
		})
	}
}
