package nodeid_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
)

// lostClaim is a store of one claim a test loses through its ClaimState,
// as a store's watcher does (zklease on a session expiry).
type lostClaim struct{ cs *nodeid.ClaimState }

func (c *lostClaim) Acquire(context.Context, snowlab.Layout, int, int) (nodeid.Claim, error) {
	return c, nil
}
func (c *lostClaim) First() int                           { return 0 }
func (c *lostClaim) Count() int                           { return 1 }
func (c *lostClaim) Floor() int64                         { return 0 }
func (c *lostClaim) Token() int64                         { return 1 }
func (c *lostClaim) Lost() <-chan struct{}                { return c.cs.Lost() }
func (c *lostClaim) Reserve(context.Context, int64) error { return nil }
func (c *lostClaim) Release(context.Context, int64) error { return nil }
func (c *lostClaim) lose(why string)                      { c.cs.Lose(why) }

// explainedClaim is a lostClaim that says why it was lost.
type explainedClaim struct{ lostClaim }

func (c *explainedClaim) Acquire(context.Context, snowlab.Layout, int, int) (nodeid.Claim, error) {
	return c, nil
}
func (c *explainedClaim) Err() error { return c.cs.Err() }

// TestLostLeaseSaysWhy: a claim its store loses (Lost closed by the
// store's watcher, not by a failed Reserve) makes the lease lost with the
// claim's reason when the claim gives one: Lease.Err was ErrLost alone,
// so snowidd logged a lost ZooKeeper lease with no reason.
func TestLostLeaseSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		claim interface {
			nodeid.Store
			lose(string)
		}
		want string
	}{
		{"with Err", &explainedClaim{lostClaim{nodeid.NewClaimState("zklease: node ids 0..0 (token 1)", 0, nil)}},
			"nodeid: lease lost: zklease: node ids 0..0 (token 1): the ZooKeeper session expired"},
		{"without Err", &lostClaim{nodeid.NewClaimState("x", 0, nil)}, "nodeid: lease lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clock := clocksrc.Func(func() int64 { return time.Now().UnixNano() })
				l, err := nodeid.Acquire(context.Background(), tc.claim, nodeid.Options{Clock: clock})
				if err != nil {
					t.Fatal(err)
				}
				tc.claim.lose("the ZooKeeper session expired")
				<-l.Lost()
				err = l.Err()
				if !errors.Is(err, nodeid.ErrLost) || err.Error() != tc.want {
					t.Fatalf("Lease.Err() = %v, want %q wrapping ErrLost", err, tc.want)
				}
				l.Release(context.Background())
			})
		})
	}
}
