package etcdlease

import (
	"context"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/snowlab/snowlab/etcdlease/etcdtest"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// TestStoreSuite runs the Store suite on etcd: on a server of the test's
// own when the etcd binary is on PATH, which the restart case stops and
// starts again; else on $ETCD_ENDPOINTS, without the restart case. Each
// case's backend is a fresh key prefix, and each client of it an etcd
// client of its own under that prefix.
//
// A steal revokes the claim's etcd lease (its node keys go with it) after
// stopping its monitors, so that the claim does not know. There is no
// Lose: etcd appends a write to its raft log and fsyncs it on a quorum
// before it acknowledges it, whatever the client asks, so no kill of the
// server loses an acknowledged write. With a mutant planted
// (storetest.PlantedMutant, from TestSuiteCatchesMutants) the suite must
// fail.
func TestStoreSuite(t *testing.T) {
	var eps []string
	plantMutant(t)
	cfg := storetest.Config{Expire: expireClaim, TTL: testTTL, Steal: stealClaim}
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

// stealClaim revokes c's etcd lease, as a person with etcdctl would,
// after stopping c's keep-alive and watches: its node keys are deleted
// and c does not know.
func stealClaim(t *testing.T, nc nodeid.Claim) {
	t.Helper()
	c := nc.(*claim)
	onlyMonitor(c, func(context.Context) {})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.s.cli.Revoke(ctx, c.lease); err != nil {
		t.Fatalf("revoke etcd lease %x: %v", int64(c.lease), err)
	}
}

// plantMutant plants the mutant storetest.PlantedMutant names, for the
// rest of the test.
func plantMutant(t *testing.T) {
	switch m := storetest.PlantedMutant(); m {
	case "":
	case "any-holder":
		// The node keys exist, whoever created them: the condition
		// ZooKeeper's claim znode check is without the version.
		saved := guardsOf
		guardsOf = func(c *claim) []clientv3.Cmp {
			cmps := make([]clientv3.Cmp, c.count)
			for i := range cmps {
				cmps[i] = clientv3.Compare(clientv3.CreateRevision(c.s.nodeKey(c.first+i)), ">", 0)
			}
			return cmps
		}
		t.Cleanup(func() { guardsOf = saved })
	default:
		t.Fatalf("etcdlease has no mutant %q", m)
	}
}

// TestSuiteCatchesMutants: the Store suite fails this store with its
// writes guarded on node keys that exist, whoever created them, instead
// of on the create revision the claim wrote, which only the Stolen case
// shows: in Zombie the claim's watches see its keys go, and it refuses
// its own writes before they reach etcd; after a Release the keys are
// gone.
func TestSuiteCatchesMutants(t *testing.T) {
	if _, err := etcdtest.Binary(); err != nil {
		endpoints(t) // skips, as TestStoreSuite would, without an etcd
	}
	storetest.CatchMutants(t, "TestStoreSuite", []storetest.Mutant{
		{Name: "any-holder", Case: "Stolen", Says: "its guard let it write over the successor"},
	})
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
	wait := storetest.UntilTestEnds(t) // how soon is etcd's business
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		r, err := c.s.cli.TimeToLive(ctx, c.lease)
		cancel()
		if err == nil && r.TTL < 0 {
			return
		}
		select {
		case <-wait.Done():
			t.Fatalf("etcd lease %x never expired after its keep-alive stopped (TTL %v): %v", int64(c.lease), c.s.ttl, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
