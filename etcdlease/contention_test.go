package etcdlease

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// failedTxns counts the transactions that did not succeed.
type failedTxns struct {
	clientv3.KV
	n *atomic.Int64
}

func (k failedTxns) Txn(ctx context.Context) clientv3.Txn { return countTxn{k.KV.Txn(ctx), k.n} }

type countTxn struct {
	clientv3.Txn
	n *atomic.Int64
}

func (t countTxn) If(cs ...clientv3.Cmp) clientv3.Txn   { return countTxn{t.Txn.If(cs...), t.n} }
func (t countTxn) Then(ops ...clientv3.Op) clientv3.Txn { return countTxn{t.Txn.Then(ops...), t.n} }
func (t countTxn) Else(ops ...clientv3.Op) clientv3.Txn { return countTxn{t.Txn.Else(ops...), t.n} }
func (t countTxn) Commit() (*clientv3.TxnResponse, error) {
	r, err := t.Txn.Commit()
	if err == nil && !r.Succeeded {
		t.n.Add(1)
	}
	return r, err
}

// contentionTTL is TestAcquireSpreadsUnderContention's lease TTL.
const contentionTTL = 30 * time.Second

// TestAcquireSpreadsUnderContention: 64 holders, each with a client of
// its own, acquiring at once all hold distinct node ids, after far fewer
// claim transactions that lost a race than if each walked up past every
// id taken before it (63 + 62 + … = 2,016); a holder alone still takes
// the lowest free id.
//
// The holders' leases live contentionTTL, not the suite's 2 s, and their
// first question to etcd may take as long, not ReachTimeout's 3 s:
// nothing here waits for a lease to expire or for etcd to be missing, and
// 64 holders claiming at once under -race beside CI's other suites once
// left a holder more than 2 s between two of its keep-alives (the lease
// expired mid-claim, "requested lease not found") and once kept one
// waiting 3 s for its first answer, which is the load, not the spreading
// this test checks.
func TestAcquireSpreadsUnderContention(t *testing.T) {
	eps := endpoints(t)
	p := prefix(t)
	const n = 64
	var conflicts atomic.Int64
	stores := make([]*Store, n)
	for i := range stores {
		cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, DialOptions: DialOptions(), Logger: zap.NewNop()})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cli.Close() })
		cli.KV = failedTxns{cli.KV, &conflicts}
		stores[i] = newStore(cli, p, contentionTTL)
		stores[i].reachTimeout = contentionTTL
	}
	claims := make([]nodeid.Claim, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Go(func() {
			<-start
			claims[i], errs[i] = st.Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
		})
	}
	close(start)
	wg.Wait()
	held := map[int]bool{}
	for i, c := range claims {
		require.NoError(t, errs[i], "holder %d", i)
		assert.False(t, held[c.First()], "node id %d held twice", c.First())
		held[c.First()] = true
	}
	t.Logf("%d holders: %d claim transactions lost a race", n, conflicts.Load())
	assert.Less(t, conflicts.Load(), int64(1000), "the holders walked up past each other's ids")
	for _, c := range claims {
		require.NoError(t, c.Release(ctxT(t), 0))
	}
	lone := acquire(t, stores[0], 1, 1023)
	assert.Equal(t, 0, lone.First(), "alone, a holder takes the lowest free id")
}
