package client_test

import (
	"context"
	"crypto/tls"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/etcdlease/tlstest"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/internal/servertest"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
	"github.com/snowlab/snowlab/snowidd/server"
)

var ctx = context.Background()

// replica is an in-process snowidd on node, counting the requests it got.
type replica struct {
	srv   *server.Server
	url   string
	calls atomic.Int64
}

func newReplica(t *testing.T, node int, cfg snowlab.Config) *replica {
	t.Helper()
	cfg.Node = node
	r := &replica{srv: servertest.Static(t, cfg)}
	r.url = servertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.calls.Add(1)
		r.srv.Handler().ServeHTTP(w, req)
	}))
	return r
}

// closedURL is an address nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr
}

func TestEveryProtocol(t *testing.T) {
	r := newReplica(t, 3, snowlab.Config{})
	for _, p := range client.Protocols() {
		c, err := client.New(client.Config{Targets: []string{r.url}, Protocol: p})
		require.NoError(t, err)
		id, err := c.NextID(ctx)
		require.NoError(t, err, p)
		ids, err := c.NextIDs(ctx, 100)
		require.NoError(t, err, p)
		require.Len(t, ids, 100)
		assert.Greater(t, ids[0], id, p)
		parts, err := c.Decode(ctx, id)
		require.NoError(t, err, p)
		assert.Equal(t, snowlab.DefaultLayout.Decode(id), parts, p)
	}
}

// A replica that is down or refuses with Unavailable is passed over.
func TestRetriesAcrossReplicas(t *testing.T) {
	draining := newReplica(t, 1, snowlab.Config{})
	draining.srv.Drain()
	good := newReplica(t, 2, snowlab.Config{})
	c, err := client.New(client.Config{Targets: []string{closedURL(t), draining.url, good.url}})
	require.NoError(t, err)
	for range 10 {
		id, err := c.NextID(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, snowlab.DefaultLayout.Decode(id).Node)
	}
	assert.Positive(t, draining.calls.Load())
}

func TestEveryReplicaRefuses(t *testing.T) {
	a := newReplica(t, 1, snowlab.Config{})
	b := newReplica(t, 2, snowlab.Config{})
	a.srv.Drain()
	b.srv.Unuse("the lease was lost")
	c, err := client.New(client.Config{Targets: []string{a.url, b.url}, Rounds: 2, Backoff: time.Millisecond})
	require.NoError(t, err)
	_, err = c.NextIDs(ctx, 10)
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
	assert.ErrorContains(t, err, "every replica refused 2 times")
	assert.EqualValues(t, 2, a.calls.Load())
	assert.EqualValues(t, 2, b.calls.Load())

	// One replica, one round: the refusal as the replica gave it.
	one, err := client.New(client.Config{Targets: []string{a.url}, Rounds: 1})
	require.NoError(t, err)
	_, err = one.NextID(ctx)
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
	assert.NotContains(t, err.Error(), "every replica refused")
	assert.True(t, connect.IsWireError(err), "the replica's own answer: %v", err)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.NextID(cctx)
	require.Error(t, err)
}

// A refusal every replica would repeat is returned at once.
func TestNoRetryWhereRetryCannotHelp(t *testing.T) {
	// The clock is before the layout's epoch: ErrOverflow, FailedPrecondition.
	early := newReplica(t, 1, snowlab.Config{Clock: clocksrc.FixedMillis(snowlab.DefaultLayout.Epoch.UnixMilli() - 1000)})
	good := newReplica(t, 2, snowlab.Config{})
	c, err := client.New(client.Config{Targets: []string{early.url, good.url}})
	require.NoError(t, err)
	_, err = c.NextID(ctx)
	require.Equal(t, connect.CodeFailedPrecondition, connect.CodeOf(err), "%v", err)
	assert.Zero(t, good.calls.Load())

	for _, n := range []int{0, -1, client.MaxBatch + 1} {
		_, err = c.NextIDs(ctx, n)
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
	}
	assert.EqualValues(t, 1, early.calls.Load())
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []client.Config{
		{},
		{Targets: []string{"127.0.0.1:8080"}},
		{Targets: []string{"http://x"}, Rounds: -1},
		{Targets: []string{"http://x"}, Protocol: 9},
		{Targets: []string{"http://x"}, Protocol: -1},
		{Targets: []string{"https://x"}, TLS: &tls.Config{}, HTTPClient: http.DefaultClient},
	} {
		_, err := client.New(cfg)
		assert.Error(t, err, "%+v", cfg)
	}
}

// The default HTTP client speaks HTTP/2 to plaintext and TLS replicas
// alike: one fleet may have both while it moves to TLS.
func TestPlaintextAndTLSTargets(t *testing.T) {
	ca, err := tlstest.NewCA("client test CA")
	require.NoError(t, err)
	pair, err := ca.Server("127.0.0.1")
	require.NoError(t, err)
	cert, key, err := pair.Write(t.TempDir(), "server")
	require.NoError(t, err)
	rl, err := server.NewTLSReloader(server.TLSFiles{Cert: cert, Key: key}, nil)
	require.NoError(t, err)
	plain := servertest.Static(t, snowlab.Config{Node: 1})
	secure := servertest.Static(t, snowlab.Config{Node: 2})
	c, err := client.New(client.Config{TLS: tlstest.ClientConfig(ca, nil), Targets: []string{
		servertest.Serve(t, plain.Handler()),
		servertest.ServeWith(t, secure, secure.Handler(), server.Limits{}, rl.Config()),
	}})
	require.NoError(t, err)
	nodes := map[int]int{}
	for range 4 {
		id, err := c.NextID(ctx)
		require.NoError(t, err)
		nodes[snowlab.DefaultLayout.Decode(id).Node]++
	}
	assert.Equal(t, map[int]int{1: 2, 2: 2}, nodes, "calls go round both replicas")
}

// The buffer hands out each fetched ID once, prefetches before it runs
// dry, and drops IDs older than MaxAge.
func TestBuffer(t *testing.T) {
	r := newReplica(t, 4, snowlab.Config{})
	c, err := client.New(client.Config{Targets: []string{r.url}})
	require.NoError(t, err)
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	b, err := c.NewBuffer(client.BufferConfig{Batch: 10, MaxAge: time.Second, Now: clock})
	require.NoError(t, err)

	seen := map[snowlab.ID]bool{}
	var prev snowlab.ID
	for i := range 25 {
		id, err := b.Next(ctx)
		require.NoError(t, err)
		require.False(t, seen[id], "id %d handed out twice", id)
		seen[id] = true
		if i > 0 {
			// One caller, batches fetched in turn: in order here.
			assert.Greater(t, id, prev)
		}
		prev = id
	}
	st := b.Stats()
	assert.Zero(t, st.Dropped)
	assert.GreaterOrEqual(t, st.Fetches, uint64(3))

	// Time passes beyond MaxAge: what is left is dropped, never handed out.
	mu.Lock()
	now = now.Add(2 * time.Second)
	mu.Unlock()
	id, err := b.Next(ctx)
	require.NoError(t, err)
	assert.False(t, seen[id])
	assert.Positive(t, b.Stats().Dropped)

	_, err = c.NewBuffer(client.BufferConfig{Batch: client.MaxBatch + 1})
	assert.Error(t, err)
}

func TestBufferReportsFetchErrors(t *testing.T) {
	r := newReplica(t, 5, snowlab.Config{})
	r.srv.Drain()
	c, err := client.New(client.Config{Targets: []string{r.url}, Rounds: 1})
	require.NoError(t, err)
	b, err := c.NewBuffer(client.BufferConfig{})
	require.NoError(t, err)
	_, err = b.Next(ctx)
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
}

func TestBufferConcurrentCallersGetDistinctIDs(t *testing.T) {
	r := newReplica(t, 6, snowlab.Config{})
	c, err := client.New(client.Config{Targets: []string{r.url}})
	require.NoError(t, err)
	b, err := c.NewBuffer(client.BufferConfig{Batch: 64})
	require.NoError(t, err)
	const callers, each = 8, 500
	got := make([][]snowlab.ID, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			for range each {
				id, err := b.Next(ctx)
				if !assert.NoError(t, err) {
					return
				}
				got[i] = append(got[i], id)
			}
		})
	}
	wg.Wait()
	seen := map[snowlab.ID]bool{}
	for _, ids := range got {
		for _, id := range ids {
			require.False(t, seen[id], "id %d handed out twice", id)
			seen[id] = true
		}
	}
	assert.Len(t, seen, callers*each)
}

// A replica that hangs (frozen) costs one AttemptTimeout, then the call
// moves on. The good replica's attempts are bounded by the same 50 ms,
// which a loaded machine need not keep for one call: the call may go
// round as often as it takes, by the test's end. (Three rounds were the
// premise before: one of three calls to the good replica within 50 ms.)
// Without the timeout the first attempt, on the hung replica, never
// ends.
func TestAttemptTimeoutPassesAHungReplica(t *testing.T) {
	release := make(chan struct{})
	hung := servertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release) })
	good := newReplica(t, 8, snowlab.Config{})
	c, err := client.New(client.Config{Targets: []string{hung, good.url}, AttemptTimeout: 50 * time.Millisecond, Rounds: math.MaxInt32})
	require.NoError(t, err)
	id, err := c.NextID(testend.Context(t))
	require.NoError(t, err)
	assert.Equal(t, 8, snowlab.DefaultLayout.Decode(id).Node)
}
