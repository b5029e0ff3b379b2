package etcdlease

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func acquire(t *testing.T, st nodeid.Store, count, maxNode int) *claim {
	t.Helper()
	c, err := st.Acquire(ctxT(t), count, maxNode)
	if err != nil {
		t.Fatalf("Acquire(%d, %d): %v", count, maxNode, err)
	}
	return c.(*claim)
}

func stored(t *testing.T, st *Store, key string) (value string, createRev int64, ok bool) {
	t.Helper()
	r, err := st.cli.Get(ctxT(t), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Kvs) == 0 {
		return "", 0, false
	}
	return string(r.Kvs[0].Value), r.Kvs[0].CreateRevision, true
}

func isLost(c nodeid.Claim) bool {
	select {
	case <-c.Lost():
		return true
	default:
		return false
	}
}

func waitLost(t *testing.T, c nodeid.Claim, within time.Duration) {
	t.Helper()
	select {
	case <-c.Lost():
	case <-time.After(within):
		t.Fatalf("Lost not closed within %v", within)
	}
}

func TestNewDefaults(t *testing.T) {
	for _, tc := range []struct {
		prefix, wantPrefix string
		ttl, wantTTL       time.Duration
	}{
		{"", DefaultPrefix, 0, DefaultTTL},
		{"/ids/", "/ids", time.Second, MinTTL},
		{"ids", "ids", 2500 * time.Millisecond, 3 * time.Second},
	} {
		s := newStore(nil, tc.prefix, tc.ttl)
		if s.prefix != tc.wantPrefix || s.ttl != tc.wantTTL {
			t.Errorf("New(%q, %v): prefix %q ttl %v, want %q %v", tc.prefix, tc.ttl, s.prefix, s.ttl, tc.wantPrefix, tc.wantTTL)
		}
	}
}

// TestAcquireKeysTokenFloor checks what one claim writes: node keys on the
// lease with the transaction's revision as their create revision (the
// token), reserved-until keys outside it, and the floor read back by the
// next holder.
func TestAcquireKeysTokenFloor(t *testing.T) {
	st, _ := dial(t, endpoints(t))
	c := acquire(t, st, 3, 1023)
	if c.First() != 0 || c.Count() != 3 || c.Floor() != 0 {
		t.Fatalf("first claim: first %d count %d floor %d, want 0 3 0", c.First(), c.Count(), c.Floor())
	}
	for n := range 3 {
		_, rev, ok := stored(t, st, st.nodeKey(n))
		if !ok || rev != c.Token() {
			t.Fatalf("node key %d: present %v create revision %d, want the token %d", n, ok, rev, c.Token())
		}
	}
	r, err := st.cli.Get(ctxT(t), st.nodeKey(0))
	if err != nil {
		t.Fatal(err)
	}
	if got := clientv3.LeaseID(r.Kvs[0].Lease); got != c.lease {
		t.Fatalf("node key on lease %x, want %x", got, c.lease)
	}
	until := time.Now().Add(time.Hour).UnixNano()
	if err := c.Reserve(ctxT(t), until); err != nil {
		t.Fatal(err)
	}
	// Forward only: an earlier until leaves the stored value.
	if err := c.Reserve(ctxT(t), until-int64(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for n := range 3 {
		v, _, _ := stored(t, st, st.reservedKey(n))
		if v != strconv.FormatInt(until, 10) {
			t.Fatalf("reserved/%d = %s, want %d", n, v, until)
		}
		r, _ := st.cli.Get(ctxT(t), st.reservedKey(n))
		if r.Kvs[0].Lease != 0 {
			t.Fatalf("reserved/%d is attached to a lease: it must outlive the holder", n)
		}
	}
	final := time.Now().Add(time.Second).UnixNano()
	if err := c.Release(ctxT(t), final); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := stored(t, st, st.nodeKey(0)); ok {
		t.Fatal("node key left after Release")
	}
	ttl, err := st.cli.TimeToLive(ctxT(t), c.lease)
	if err != nil || ttl.TTL != -1 {
		t.Fatalf("lease after Release: %v %v, want revoked (TTL -1)", ttl, err)
	}
	if isLost(c) {
		t.Fatal("a release is not a loss")
	}

	c2 := acquire(t, st, 1, 1023)
	defer c2.Release(context.Background(), 0)
	if c2.First() != 0 || c2.Floor() != final || c2.Token() <= c.Token() {
		t.Fatalf("next holder: first %d floor %d token %d; want 0, the released %d, above %d", c2.First(), c2.Floor(), c2.Token(), final, c.Token())
	}
}

// TestAcquireRanges checks the search for count consecutive free ids and
// the floor as the latest reservation over the range.
func TestAcquireRanges(t *testing.T) {
	st, _ := dial(t, endpoints(t))
	a := acquire(t, st, 1, 1023) // 0
	b := acquire(t, st, 1, 1023) // 1
	defer b.Release(context.Background(), 0)
	if err := a.Reserve(ctxT(t), 500); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(ctxT(t), 700); err != nil {
		t.Fatal(err)
	}
	// 0 is free but alone: two ids go to 2..3.
	c := acquire(t, st, 2, 1023)
	defer c.Release(context.Background(), 0)
	if c.First() != 2 || c.Floor() != 0 {
		t.Fatalf("two ids: first %d floor %d, want 2 0", c.First(), c.Floor())
	}
	d := acquire(t, st, 1, 1023)
	defer d.Release(context.Background(), 0)
	if d.First() != 0 || d.Floor() != 700 {
		t.Fatalf("one id: first %d floor %d, want 0 700", d.First(), d.Floor())
	}
	// The floor is the latest reserved-until over the range.
	if _, err := st.cli.Put(ctxT(t), st.reservedKey(5), "900"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.cli.Put(ctxT(t), st.reservedKey(6), "800"); err != nil {
		t.Fatal(err)
	}
	e := acquire(t, st, 3, 1023)
	defer e.Release(context.Background(), 0)
	if e.First() != 4 || e.Floor() != 900 {
		t.Fatalf("three ids: first %d floor %d, want 4 900", e.First(), e.Floor())
	}
	for _, tc := range []struct{ count, maxNode int }{{0, 10}, {3, 1}, {MaxCount + 1, 1023}, {1, -1}} {
		if _, err := st.Acquire(ctxT(t), tc.count, tc.maxNode); !errors.Is(err, snowlab.ErrInvalidNode) {
			t.Errorf("Acquire(%d, %d) = %v, want ErrInvalidNode", tc.count, tc.maxNode, err)
		}
	}
	if _, err := st.cli.Put(ctxT(t), st.reservedKey(20), "soon"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Acquire(ctxT(t), 14, 20); err == nil {
		t.Fatal("a malformed reserved-until was accepted as a floor")
	}
	if _, _, ok := stored(t, st, st.nodeKey(20)); ok {
		t.Fatal("a failed Acquire left its node keys behind")
	}
}

// TestLossSignals: the claim reports loss when its node key is deleted,
// when its etcd lease is revoked, and when a reservation's guard fails;
// Reserve and Release then wrap nodeid.ErrLost.
func TestLossSignals(t *testing.T) {
	st, _ := dial(t, endpoints(t))
	t.Run("key deleted", func(t *testing.T) {
		c := acquire(t, st, 2, 1023)
		if _, err := st.cli.Delete(ctxT(t), st.nodeKey(c.First()+1)); err != nil {
			t.Fatal(err)
		}
		waitLost(t, c, 2*time.Second)
		if err := c.Reserve(ctxT(t), time.Now().UnixNano()); !errors.Is(err, nodeid.ErrLost) {
			t.Fatalf("Reserve after loss = %v, want ErrLost", err)
		}
		if err := c.Release(ctxT(t), 1); !errors.Is(err, nodeid.ErrLost) {
			t.Fatalf("Release after loss = %v, want ErrLost", err)
		}
		if v, _, _ := stored(t, st, st.reservedKey(c.First())); v == "1" {
			t.Fatal("a lost claim's Release wrote reserved-until")
		}
	})
	t.Run("lease revoked", func(t *testing.T) {
		c := acquire(t, st, 1, 1023)
		// Only the keep-alive: its channel closes, TimeToLive says the
		// lease is gone.
		onlyMonitor(c, func(ctx context.Context) { c.keepAlive(ctx) })
		if _, err := st.cli.Revoke(ctxT(t), c.lease); err != nil {
			t.Fatal(err)
		}
		waitLost(t, c, 2*time.Second)
		if err := c.Release(ctxT(t), 1); !errors.Is(err, nodeid.ErrLost) {
			t.Fatalf("Release after loss = %v, want ErrLost", err)
		}
	})
	t.Run("guard fails", func(t *testing.T) {
		c := acquire(t, st, 1, 1023)
		c.stopMonitors() // only the guard can notice now
		c.monitors.Wait()
		k := st.nodeKey(c.First())
		// Another holder: the key deleted and created again.
		if _, err := st.cli.Delete(ctxT(t), k); err != nil {
			t.Fatal(err)
		}
		if _, err := st.cli.Put(ctxT(t), k, "someone else"); err != nil {
			t.Fatal(err)
		}
		if err := c.Reserve(ctxT(t), time.Now().UnixNano()); !errors.Is(err, nodeid.ErrLost) {
			t.Fatalf("Reserve = %v, want ErrLost", err)
		}
		if !isLost(c) {
			t.Fatal("a failed guard did not close Lost")
		}
		_ = c.Release(ctxT(t), 0)
		if v, _, _ := stored(t, st, k); v != "someone else" {
			t.Fatalf("the lost claim's Release touched the new holder's key: %q", v)
		}
	})
	t.Run("expired", func(t *testing.T) {
		c := acquire(t, st, 1, 1023)
		// A holder that stops keeping its lease alive: its etcd lease
		// expires one TTL later and the watch on its key says so.
		onlyMonitor(c, func(ctx context.Context) { c.watch(ctx, st.nodeKey(c.First())) })
		waitLost(t, c, testTTL+3*time.Second)
	})
}

// TestWatchAfterCompaction: when the history a node key's watch needs was
// compacted away, the claim reads the key instead. Compaction drops every
// key's history, so these run on a server of their own.
func TestWatchAfterCompaction(t *testing.T) {
	st, _ := dial(t, ownServer(t).Endpoints())
	t.Run("watch after compaction", func(t *testing.T) {
		c := acquire(t, st, 1, 1023)
		defer c.Release(context.Background(), 0)
		// The history after the token is compacted away: a watch from
		// there is refused, the claim reads the key instead, finds it
		// still its own, and watches on from now.
		r, err := st.cli.Put(ctxT(t), st.reservedKey(999), "1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.cli.Compact(ctxT(t), r.Header.Revision); err != nil {
			t.Fatal(err)
		}
		onlyMonitor(c, func(ctx context.Context) { c.watch(ctx, st.nodeKey(c.First())) })
		time.Sleep(300 * time.Millisecond)
		if isLost(c) {
			t.Fatalf("lost after a compaction: %s", c.why)
		}
		if _, err := st.cli.Delete(ctxT(t), st.nodeKey(c.First())); err != nil {
			t.Fatal(err)
		}
		waitLost(t, c, 2*time.Second)
	})
	t.Run("compacted and taken", func(t *testing.T) {
		c := acquire(t, st, 1, 1023)
		c.stopMonitors()
		c.monitors.Wait()
		k := st.nodeKey(c.First())
		if _, err := st.cli.Delete(ctxT(t), k); err != nil {
			t.Fatal(err)
		}
		r, err := st.cli.Put(ctxT(t), k, "someone else")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.cli.Compact(ctxT(t), r.Header.Revision); err != nil {
			t.Fatal(err)
		}
		onlyMonitor(c, func(ctx context.Context) { c.watch(ctx, k) })
		waitLost(t, c, 2*time.Second)
		if !strings.Contains(c.why, "compaction") {
			t.Fatalf("lost for %q, want the check after the compaction", c.why)
		}
	})
}

// onlyMonitor replaces c's monitors with run alone.
func onlyMonitor(c *claim, run func(ctx context.Context)) {
	c.stopMonitors()
	c.monitors.Wait()
	ctx, cancel := context.WithCancel(context.Background())
	c.stopMonitors = cancel
	c.monitors.Add(1)
	go func() { defer c.monitors.Done(); run(ctx) }()
}
