package remote_test

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/server"
)

// counts records the count of every NextIDs call a Connect JSON client
// sends through it (0 for NextID) before the server answers.
type counts struct {
	mu    sync.Mutex
	calls []int
}

func (c *counts) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct{ Count int }
		_ = json.Unmarshal(body, &req)
		c.mu.Lock()
		c.calls = append(c.calls, req.Count)
		c.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// take returns the calls recorded so far and forgets them.
func (c *counts) take() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := c.calls
	c.calls = nil
	return calls
}

// TestSubject: a batch subject refills a batch of its size at a time and
// fills in calls of at most MaxBatch, its IDs increasing; OnNodes gives a
// replica on several node ids their ceilings and order per node id.
func TestSubject(t *testing.T) {
	var c counts
	url := serveHandler(t, c.wrap(newServer(t, snowlab.Config{Node: 3}, server.Config{}).Handler()))

	s, err := remote.Subject(url, client.ConnectJSON, 10, snowlab.Layout{}, nil)
	require.NoError(t, err)
	assert.Equal(t, "snowidd/connect+json/NextIDs(10)", s.Name)
	assert.True(t, s.Strict)
	assert.Equal(t, subject.OrderCaller, s.Order)
	assert.InDelta(t, 4_096_000, s.Ceiling(), 1, "one node id's ceiling under the default layout")
	m, err := s.New()
	require.NoError(t, err)
	var last uint64
	for range 25 {
		id, err := m.Next()
		require.NoError(t, err)
		require.Greater(t, id.Lo, last)
		last = id.Lo
		assert.Equal(t, 3, snowlab.DefaultLayout.Decode(snowlab.ID(id.Lo)).Node)
	}
	assert.Equal(t, []int{10, 10, 10}, c.take(), "Next refills a batch of 10 at a time")

	dst := make([]subject.ID, 2*client.MaxBatch+50_000)
	n, err := subject.Fill(m, dst)
	require.NoError(t, err)
	assert.Equal(t, len(dst), n)
	assert.Equal(t, []int{client.MaxBatch, client.MaxBatch, 50_000}, c.take(), "Fill asks in calls of at most MaxBatch")
	assert.Greater(t, dst[0].Lo, last, "after the IDs the batches took")
	assert.True(t, slices.IsSortedFunc(dst, func(a, b subject.ID) int { return cmp.Compare(a.Lo, b.Lo) }), "Fill's IDs increase")

	s, err = remote.Subject(url, client.GRPC, 0, snowlab.Layout{}, nil)
	require.NoError(t, err)
	assert.Equal(t, "snowidd/grpc/NextID", s.Name)
	assert.Equal(t, "snowidd/connect+proto/NextIDs(7)", remote.Name(client.ConnectProto, 7))

	// On three node ids: three ceilings, and order per node id, which
	// the minter names.
	s1 := remote.OnNodes(s, 1)
	assert.Equal(t, subject.OrderCaller, s1.Order)
	assert.Equal(t, 1, s1.Nodes)
	s3 := remote.OnNodes(s, 3)
	assert.InDelta(t, 3*4_096_000, s3.Ceiling(), 1)
	assert.Equal(t, subject.OrderShard, s3.Order)
	m, err = s3.New()
	require.NoError(t, err)
	sh, ok := m.(subject.Sharder)
	require.True(t, ok, "the minter names an ID's shard")
	id, err := snowlab.Layout{}.OrDefault().Compose(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), 2, 5)
	require.NoError(t, err)
	assert.Equal(t, 2, sh.ShardOf(subject.ID{Lo: uint64(id)}))
}

func TestSubjectRefusesBadInput(t *testing.T) {
	for _, batch := range []int{-1, client.MaxBatch + 1} {
		_, err := remote.Subject("http://127.0.0.1:1", client.GRPC, batch, snowlab.Layout{}, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), fmt.Sprintf("batch %d", batch))
	}
	_, err := remote.Subject("127.0.0.1:8080", client.GRPC, 0, snowlab.Layout{}, nil)
	assert.ErrorContains(t, err, `"127.0.0.1:8080"`)
	_, err = remote.Subject("http://127.0.0.1:1", client.Protocol(9), 0, snowlab.Layout{}, nil)
	assert.ErrorIs(t, err, client.ErrProtocol)
	_, err = remote.Subject("http://127.0.0.1:1", client.GRPC, 0, snowlab.Layout{NodeBits: 30}, nil)
	assert.Error(t, err, "a layout that does not fit")
	_, err = remote.Subject("http://127.0.0.1:1", client.GRPC, 0, snowlab.Layout{}, &tls.Config{})
	assert.ErrorContains(t, err, "with a TLS configuration: want https://HOST:PORT")
}

// httpVersions fails t for a call that arrives over an HTTP version other
// than its protocol's: gRPC-Web HTTP/1.1, as a browser's client sends it;
// gRPC (which needs it) and Connect HTTP/2. overTLS says whether calls
// must come over TLS.
func httpVersions(t *testing.T, overTLS bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := 2
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc-web") {
			want = 1
		}
		assert.Equal(t, want, r.ProtoMajor, "%s", r.Header.Get("Content-Type"))
		assert.Equal(t, overTLS, r.TLS != nil, "over TLS")
		next.ServeHTTP(w, r)
	})
}

// TestTransports: every protocol goes over the HTTP version its callers
// use, in plaintext and to an https:// base over TLS (HTTP/2 negotiated by
// ALPN); a server the configuration does not trust is an error. (The
// replica tests run mutual TLS.)
func TestTransports(t *testing.T) {
	plain := serveHandler(t, httpVersions(t, false, newServer(t, snowlab.Config{Node: 1}, server.Config{}).Handler()))
	ts := httptest.NewUnstartedServer(httpVersions(t, true, newServer(t, snowlab.Config{Node: 2}, server.Config{}).Handler()))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	trusting := ts.Client().Transport.(*http.Transport).TLSClientConfig
	for _, p := range client.Protocols() {
		for node, base := range map[int]string{1: plain, 2: ts.URL} {
			var cfg *tls.Config
			if node == 2 {
				cfg = trusting
			}
			c, err := remote.NewClient(base, p, cfg)
			require.NoError(t, err)
			id, err := c.NextID(t.Context())
			require.NoError(t, err, "%s to %s", p, base)
			assert.Equal(t, node, snowlab.DefaultLayout.Decode(snowlab.ID(id)).Node)
			ids, err := c.NextIDs(t.Context(), 3)
			require.NoError(t, err, "%s to %s", p, base)
			assert.Len(t, ids, 3)
			assert.Greater(t, uint64(ids[0]), id)
			c.CloseIdleConnections()
		}
	}
	c, err := remote.NewClient(ts.URL, client.GRPC, nil) // the system's roots
	require.NoError(t, err)
	_, err = c.NextID(t.Context())
	require.ErrorIs(t, err, remote.ErrCall)
	assert.Contains(t, err.Error(), "certificate")
	assert.Equal(t, "", remote.CodeOf(err), "no answer came")
}

// gate holds every call until g are in flight at once, then lets them
// all through; a call still held after 10 s is refused Unavailable
// instead of hanging the test.
type gate struct {
	g                   int
	mu                  sync.Mutex
	inFlight, maxFlight int
	all, timeout        chan struct{}
}

func newGate(t *testing.T, g int) *gate {
	gt := &gate{g: g, all: make(chan struct{}), timeout: make(chan struct{})}
	stop := time.AfterFunc(10*time.Second, func() { close(gt.timeout) })
	t.Cleanup(func() { stop.Stop() })
	return gt
}

func (gt *gate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gt.mu.Lock()
		gt.inFlight++
		gt.maxFlight = max(gt.maxFlight, gt.inFlight)
		if gt.inFlight == gt.g {
			select {
			case <-gt.all:
			default:
				close(gt.all)
			}
		}
		gt.mu.Unlock()
		defer func() { gt.mu.Lock(); gt.inFlight--; gt.mu.Unlock() }()
		select {
		case <-gt.all:
			next.ServeHTTP(w, r)
		case <-gt.timeout:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"code":"unavailable","message":"test replica: fewer than %d calls in flight after 10s"}`, gt.g)
		}
	})
}

// TestBatchCallersCallAtOnce: G goroutines taking IDs one at a time from a
// batch subject keep G NextIDs calls in flight, each goroutine refilling
// its own batch, and each goroutine's IDs still increase. The replica
// answers no call until G are in flight: one shared batch, refilled by
// one caller at a time, would leave the first call waiting for the rest,
// which it answers as an error after a timeout instead of hanging.
func TestBatchCallersCallAtOnce(t *testing.T) {
	const g, batch = 4, 10
	var c counts
	gt := newGate(t, g)
	url := serveHandler(t, gt.wrap(c.wrap(newServer(t, snowlab.Config{Node: 5}, server.Config{}).Handler())))
	s, err := remote.Subject(url, client.ConnectJSON, batch, snowlab.Layout{}, nil)
	require.NoError(t, err)
	res, err := workload.Burst(s, workload.BurstConfig{IDs: g * batch * 3, Goroutines: g, Repeats: 1}, false, nil)
	require.NoError(t, err)
	assert.Zero(t, res.Check.Errors, res.Check.FirstError)
	assert.Equal(t, g*batch*3, res.Check.IDs)
	assert.Zero(t, res.Check.Duplicates)
	assert.Zero(t, res.Check.OrderViolations, "each goroutine's IDs increase")
	gt.mu.Lock()
	assert.Equal(t, g, gt.maxFlight)
	gt.mu.Unlock()
	assert.Len(t, c.take(), g*3, "each goroutine refilled its batch 3 times")
}

// closedURL is an address nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr
}

// TestClient: a Client's calls answer IDs; a refusal carries the
// replica's code over every protocol (CodeOf) and is not retried; a call
// the replica never answered has none; Clock reads GET /clock.
func TestClient(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 123456789, time.UTC)
	srv := newServer(t, snowlab.Config{Node: 6}, server.Config{Now: func() time.Time { return at }})
	var c counts
	url := serveHandler(t, c.wrap(srv.Handler()))
	ok, err := remote.NewClient(url+"/", client.ConnectProto, nil)
	require.NoError(t, err)
	assert.Equal(t, url, ok.URL())
	id, err := ok.NextID(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 6, snowlab.DefaultLayout.Decode(snowlab.ID(id)).Node)
	_, err = ok.NextIDs(t.Context(), 0)
	assert.ErrorIs(t, err, remote.ErrCall)
	assert.ErrorContains(t, err, "NextIDs(0)")
	ns, rtt, err := ok.Clock(t.Context())
	require.NoError(t, err)
	assert.Equal(t, at.UnixNano(), ns)
	assert.Positive(t, rtt)

	srv.Drain()
	c.take()
	for _, p := range client.Protocols() {
		cl, err := remote.NewClient(url, p, nil)
		require.NoError(t, err)
		_, err = cl.NextIDs(t.Context(), 5)
		require.ErrorIs(t, err, remote.ErrCall)
		assert.Equal(t, "unavailable", remote.CodeOf(err), "%s: %v", p, err)
	}
	assert.Len(t, c.take(), len(client.Protocols()), "one attempt per call, no retry")

	hang := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	hung, err := remote.NewClient(hang, client.ConnectProto, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = hung.NextID(ctx)
	require.ErrorIs(t, err, remote.ErrCall)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "", remote.CodeOf(err), "a call that never came back has no status")

	down, err := remote.NewClient(closedURL(t), client.GRPC, nil)
	require.NoError(t, err)
	_, err = down.NextID(t.Context())
	require.ErrorIs(t, err, remote.ErrCall)
	assert.Equal(t, "", remote.CodeOf(err), "a refused connection has no status")
	assert.Equal(t, "", remote.CodeOf(nil))
}
