package etcdlease

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/snowlab/snowlab/etcdlease/etcdtest"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// TestStoreSuite runs the Store suite on etcd: on a server of the test's
// own when the etcd binary is on PATH, which the restart case stops and
// starts again; else on $ETCD_ENDPOINTS, without the restart case. Each
// case's backend is a fresh key prefix, and each client of it an etcd
// client of its own under that prefix.
func TestStoreSuite(t *testing.T) {
	var eps []string
	cfg := storetest.Config{Expire: expireClaim, TTL: testTTL}
	if _, err := etcdtest.Binary(); err == nil {
		srv := ownServer(t)
		eps = srv.Endpoints()
		cfg.Stop = func(*testing.T) { srv.Stop() }
		cfg.Start = func(t *testing.T) {
			if err := srv.Restart(); err != nil {
				t.Fatalf("restarting etcd: %v", err)
			}
		}
	} else {
		eps = endpoints(t)
	}
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		p := prefix(t)
		ttl := heldTTL
		if storetest.ExpiresHolder(t) {
			ttl = testTTL
		}
		return storetest.BackendFunc(func(t *testing.T) nodeid.Store { return dialPrefix(t, eps, p, ttl) })
	}, cfg)
}

// heldTTL is the etcd lease TTL of the cases whose holders must keep their
// ids throughout (storetest.ExpiresHolder): a keep-alive held up past
// testTTL (2 s) by a loaded machine would let a claim expire mid-case (as
// k8slease's did at load average 32-36).
const heldTTL = 30 * time.Second

// dialPrefix returns a Store on eps under p with etcd leases of ttl, on a
// client of its own (as another process would have), closed when the
// test ends.
func dialPrefix(t *testing.T, eps []string, p string, ttl time.Duration) nodeid.Store {
	t.Helper()
	st, closeFn, err := Dial(eps, p, ttl)
	if err != nil {
		t.Fatalf("etcdlease.Dial(%v): %v", eps, err)
	}
	t.Cleanup(func() { _ = closeFn() })
	return st
}

// expireClaim stops the claim's keep-alive, as a holder frozen or cut off
// from etcd would, and waits until etcd has expired its lease: at most a
// TTL, plus etcd's expiry check (every 500 ms). The watches on its node
// keys go on, so the claim sees its keys go.
func expireClaim(t *testing.T, nc nodeid.Claim) {
	t.Helper()
	c := nc.(*claim)
	onlyMonitor(c, func(ctx context.Context) {
		var wg sync.WaitGroup
		for i := range c.count {
			wg.Go(func() { c.watch(ctx, c.s.nodeKey(c.first+i)) })
		}
		wg.Wait()
	})
	deadline := time.Now().Add(c.s.ttl + 5*time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		r, err := c.s.cli.TimeToLive(ctx, c.lease)
		cancel()
		if err == nil && r.TTL < 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("etcd lease %x not expired %v after its keep-alive stopped (TTL %v): %v", int64(c.lease), c.s.ttl+5*time.Second, c.s.ttl, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
