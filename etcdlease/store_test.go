package etcdlease

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// ctxT is the context of the tests' calls to the store and to etcd:
// storetest.UntilTestEnds, so that a call never answered fails with its
// own error and one answered late on a loaded machine does not (20 s was
// the bound before).
func ctxT(t *testing.T) context.Context { return storetest.UntilTestEnds(t) }

func acquire(t *testing.T, st nodeid.Store, count, maxNode int) *claim {
	t.Helper()
	c, err := st.Acquire(ctxT(t), snowlab.Layout{}, count, maxNode)
	require.NoError(t, err, "Acquire(%d, %d)", count, maxNode)
	return c.(*claim)
}

func stored(t *testing.T, st *Store, key string) (value string, createRev int64, ok bool) {
	t.Helper()
	r, err := st.cli.Get(ctxT(t), key)
	require.NoError(t, err)
	if len(r.Kvs) == 0 {
		return "", 0, false
	}
	return string(r.Kvs[0].Value), r.Kvs[0].CreateRevision, true
}

// isLost says whether a claim's or a lease's Lost channel is closed.
func isLost(c interface{ Lost() <-chan struct{} }) bool {
	select {
	case <-c.Lost():
		return true
	default:
		return false
	}
}

// waitLost waits for c's Lost, until the test ends (storetest.UntilTestEnds).
func waitLost(t *testing.T, c nodeid.Claim) {
	t.Helper()
	select {
	case <-c.Lost():
	case <-storetest.UntilTestEnds(t).Done():
		t.Fatalf("Lost not closed by the test's end")
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
		assert.Equal(t, tc.wantPrefix, s.prefix, "New(%q, %v): prefix", tc.prefix, tc.ttl)
		assert.Equal(t, tc.wantTTL, s.ttl, "New(%q, %v): ttl", tc.prefix, tc.ttl)
	}
}

// TestAcquireKeys checks what one claim writes to etcd: node keys on the
// lease with the transaction's revision as their create revision (the
// token), reserved-until keys outside it, both deleted or kept and the
// lease revoked at Release. What a successor sees of them is the Store
// suite's (TestStoreSuite).
func TestAcquireKeys(t *testing.T) {
	st, _ := dial(t, endpoints(t))
	c := acquire(t, st, 3, 1023)
	requireClaim(t, c, 0, 0, "first claim")
	for n := range 3 {
		_, rev, ok := stored(t, st, st.nodeKey(n))
		require.True(t, ok, "node key %d missing", n)
		require.Equal(t, c.Token(), rev, "node key %d: create revision, want the token", n)
	}
	r, err := st.cli.Get(ctxT(t), st.nodeKey(0))
	require.NoError(t, err)
	require.Equal(t, c.lease, clientv3.LeaseID(r.Kvs[0].Lease), "node key's lease")
	until := time.Now().Add(time.Hour).UnixNano()
	require.NoError(t, c.Reserve(ctxT(t), until))
	for n := range 3 {
		v, _, _ := stored(t, st, st.reservedKey(n))
		require.Equal(t, strconv.FormatInt(until, 10), v, "reserved/%d", n)
		r, _ := st.cli.Get(ctxT(t), st.reservedKey(n))
		require.Zero(t, r.Kvs[0].Lease, "reserved/%d is attached to a lease: it must outlive the holder", n)
	}
	final := time.Now().Add(time.Second).UnixNano()
	require.NoError(t, c.Release(ctxT(t), final))
	_, _, ok := stored(t, st, st.nodeKey(0))
	require.False(t, ok, "node key left after Release")
	v, _, _ := stored(t, st, st.reservedKey(0))
	require.Equal(t, strconv.FormatInt(final, 10), v, "reserved/0 after Release")
	ttl, err := st.cli.TimeToLive(ctxT(t), c.lease)
	require.NoError(t, err, "lease after Release")
	require.Equal(t, int64(-1), ttl.TTL, "lease after Release: TTL, want revoked (-1)")
}

// requireClaim fails the test unless c starts at node id first with the
// given floor.
func requireClaim(t *testing.T, c nodeid.Claim, first int, floor int64, what string) {
	t.Helper()
	require.Equal(t, first, c.First(), "%s: first node id", what)
	require.Equal(t, floor, c.Floor(), "%s: floor", what)
}

// TestAcquireRefusals: counts etcd cannot hold in one transaction or that
// no range satisfies are snowlab.ErrInvalidNode; a reserved-until that is
// not a number is refused as a floor, and the failed Acquire leaves no
// node keys behind. Ranges and their floors are the Store suite's.
func TestAcquireRefusals(t *testing.T) {
	st, _ := dial(t, endpoints(t))
	for _, tc := range []struct{ count, maxNode int }{{0, 10}, {3, 1}, {MaxCount + 1, 1023}, {1, -1}} {
		_, err := st.Acquire(ctxT(t), snowlab.Layout{}, tc.count, tc.maxNode)
		assert.ErrorIs(t, err, snowlab.ErrInvalidNode, "Acquire(%d, %d)", tc.count, tc.maxNode)
	}
	_, err := st.cli.Put(ctxT(t), st.reservedKey(5), "soon")
	require.NoError(t, err)
	_, err = st.Acquire(ctxT(t), snowlab.Layout{}, 14, 20)
	require.Error(t, err, "a malformed reserved-until was accepted as a floor")
	assert.Contains(t, err.Error(), `"soon"`)
	for _, n := range []int{0, 5, 13} {
		_, _, ok := stored(t, st, st.nodeKey(n))
		require.False(t, ok, "a failed Acquire left node key %d behind", n)
	}
}

// TestLossSignals: the claim reports loss when its node key is deleted,
// when its etcd lease is revoked, and when a reservation's guard fails;
// Reserve and Release then wrap nodeid.ErrLost. (An expired lease is the
// Store suite's Expiry and Zombie cases.)
func TestLossSignals(t *testing.T) {
	st, _ := dial(t, endpoints(t))
	t.Run("key deleted", func(t *testing.T) {
		c := acquire(t, st, 2, 1023)
		_, err := st.cli.Delete(ctxT(t), st.nodeKey(c.First()+1))
		require.NoError(t, err)
		waitLost(t, c)
		require.ErrorIs(t, c.Reserve(ctxT(t), time.Now().UnixNano()), nodeid.ErrLost, "Reserve after loss")
		require.ErrorIs(t, c.Release(ctxT(t), 1), nodeid.ErrLost, "Release after loss")
		v, _, _ := stored(t, st, st.reservedKey(c.First()))
		require.NotEqual(t, "1", v, "a lost claim's Release wrote reserved-until")
	})
	t.Run("lease revoked", func(t *testing.T) {
		c := acquire(t, st, 1, 1023)
		// Only the keep-alive: its channel closes, TimeToLive says the
		// lease is gone.
		onlyMonitor(c, func(ctx context.Context) { c.keepAlive(ctx) })
		_, err := st.cli.Revoke(ctxT(t), c.lease)
		require.NoError(t, err)
		waitLost(t, c)
		require.ErrorIs(t, c.Release(ctxT(t), 1), nodeid.ErrLost, "Release after loss")
	})
	t.Run("guard fails", func(t *testing.T) {
		c := acquire(t, st, 1, 1023)
		c.stopMonitors() // only the guard can notice now
		c.monitors.Wait()
		k := st.nodeKey(c.First())
		// Another holder: the key deleted and created again.
		_, err := st.cli.Delete(ctxT(t), k)
		require.NoError(t, err)
		_, err = st.cli.Put(ctxT(t), k, "someone else")
		require.NoError(t, err)
		require.ErrorIs(t, c.Reserve(ctxT(t), time.Now().UnixNano()), nodeid.ErrLost, "Reserve")
		require.True(t, isLost(c), "a failed guard did not close Lost")
		_ = c.Release(ctxT(t), 0)
		v, _, _ := stored(t, st, k)
		require.Equal(t, "someone else", v, "the lost claim's Release touched the new holder's key")
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
		// still its own, and watches on from now. Two writes after the
		// token: a compaction at revision r keeps r, so with one (at
		// token+1, where the watch starts) nothing the watch needs was
		// compacted, and the case never ran the claim's read.
		_, err := st.cli.Put(ctxT(t), st.reservedKey(999), "1")
		require.NoError(t, err)
		r, err := st.cli.Put(ctxT(t), st.reservedKey(999), "2")
		require.NoError(t, err)
		_, err = st.cli.Compact(ctxT(t), r.Header.Revision)
		require.NoError(t, err)
		// The watch alone, and the keep-alive: without it the etcd lease
		// expires a TTL on, and the check below races with that.
		onlyMonitor(c, func(ctx context.Context) {
			var wg sync.WaitGroup
			wg.Go(func() { c.keepAlive(ctx) })
			c.watch(ctx, st.nodeKey(c.First()))
			wg.Wait()
		})
		// Wait for the watch to have read the key past the compaction.
		// (A sleep of 300 ms assumed it had by then, and the check
		// below ran whether it had or not: with the one write before
		// the compaction it never had.)
		wait := storetest.UntilTestEnds(t)
		for c.compactReads.Load() == 0 && !isLost(c) {
			select {
			case <-wait.Done():
				t.Fatal("the watch never read the key after the compaction")
			case <-time.After(10 * time.Millisecond):
			}
		}
		if isLost(c) { // why is set before Lost closes: read it only then
			require.FailNow(t, "lost after a compaction", c.lostErr().Error())
		}
		_, err = st.cli.Delete(ctxT(t), st.nodeKey(c.First()))
		require.NoError(t, err)
		waitLost(t, c)
	})
	t.Run("compacted and taken", func(t *testing.T) {
		c := acquire(t, st, 1, 1023)
		c.stopMonitors()
		c.monitors.Wait()
		k := st.nodeKey(c.First())
		_, err := st.cli.Delete(ctxT(t), k)
		require.NoError(t, err)
		r, err := st.cli.Put(ctxT(t), k, "someone else")
		require.NoError(t, err)
		_, err = st.cli.Compact(ctxT(t), r.Header.Revision)
		require.NoError(t, err)
		onlyMonitor(c, func(ctx context.Context) { c.watch(ctx, k) })
		waitLost(t, c)
		require.Contains(t, c.lostErr().Error(), "compaction", "why the claim was lost, want the check after the compaction")
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

// TestObserveRenewals: the store tells its observer of every keep-alive
// answer of a claim's etcd lease, with the claim's node ids and token and
// the lease's TTL, each Since no earlier than the keep-alive's start and
// before the answer came, and none once Release has returned (it stops
// the keep-alive first).
func TestObserveRenewals(t *testing.T) {
	st, _ := dial(t, endpoints(t))
	got := make(chan Renewal, 64)
	var released atomic.Bool
	st.ObserveRenewals(func(r Renewal) {
		if released.Load() {
			t.Errorf("a renewal after Release returned: %+v", r)
		}
		select {
		case got <- r:
		default:
		}
	})
	before := time.Now()
	c := acquire(t, st, 2, 1023)
	var prev Renewal
	for i := range 2 { // the first answer, and one a third of the TTL later
		select {
		case r := <-got:
			require.Equal(t, Renewal{First: c.first, Count: 2, Token: c.token, Since: r.Since, Received: r.Received, TTL: st.ttl}, r, "renewal %d", i)
			require.False(t, r.Since.Before(before), "renewal %d: Since %v before the claim was asked for (%v)", i, r.Since, before)
			require.True(t, r.Since.Before(r.Received), "renewal %d: Since %v not before Received %v", i, r.Since, r.Received)
			if i > 0 { // Since: the previous answer's arrival less the TTL, or the start if later
				require.False(t, r.Since.Before(prev.Received.Add(-st.ttl)) || r.Since.After(prev.Received),
					"renewal %d: Since %v is not between the previous answer's arrival %v less the TTL and it", i, r.Since, prev.Received)
			}
			prev = r
		case <-storetest.UntilTestEnds(t).Done():
			t.Fatalf("renewal %d: no keep-alive answer by the test's end (TTL %v)", i, st.ttl)
		}
	}
	require.NoError(t, c.Release(ctxT(t), 0))
	released.Store(true)
}
