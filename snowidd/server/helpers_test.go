package server_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
	"github.com/snowlab/snowlab/snowidd/internal/servertest"
	"github.com/snowlab/snowlab/snowidd/server"
)

// testClock is a scripted clock: a fixed instant plus the real time
// elapsed since the test made it (so a generator waiting for the next tick
// sees it come), plus the jumps the test scripts with Add. The generators
// and the server's readiness share it, so a test moves readiness past a
// hold of seconds without waiting for it.
type testClock struct {
	start  time.Time // read for its monotonic reading only
	base   int64
	offset atomic.Int64
}

func newTestClock() *testClock {
	return &testClock{start: time.Now(), base: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).UnixNano()}
}

func (c *testClock) UnixNano() int64 {
	return c.base + int64(time.Since(c.start)) + c.offset.Load()
}
func (c *testClock) Now() time.Time        { return time.Unix(0, c.UnixNano()) }
func (c *testClock) Add(d time.Duration)   { c.offset.Add(int64(d)) }
func (c *testClock) Clock() clocksrc.Clock { return clocksrc.Func(c.UnixNano) }

// countingGen counts the calls that reach a generator, so a test can show
// that a refused request minted nothing. A non-nil hold is called before
// each mints, so a test can keep a call in its method.
type countingGen struct {
	snowlab.Generator
	calls atomic.Int64
	hold  func()
}

func (g *countingGen) NextID() (snowlab.ID, error) {
	g.enter()
	return g.Generator.NextID()
}

func (g *countingGen) NextIDs(dst []snowlab.ID) (int, error) {
	g.enter()
	return g.Generator.NextIDs(dst)
}

func (g *countingGen) enter() {
	g.calls.Add(1)
	if g.hold != nil {
		g.hold()
	}
}

// fakeLease is a server.Lease a test controls.
type fakeLease struct {
	lost  chan struct{}
	until atomic.Int64
	err   atomic.Pointer[error]
}

func newFakeLease(until time.Time) *fakeLease {
	l := &fakeLease{lost: make(chan struct{})}
	l.until.Store(until.UnixNano())
	return l
}

func (l *fakeLease) Lost() <-chan struct{}    { return l.lost }
func (l *fakeLease) ReservedUntil() time.Time { return time.Unix(0, l.until.Load()) }
func (l *fakeLease) Nodes() (int, int)        { return 7, 1 }
func (l *fakeLease) Err() error {
	if p := l.err.Load(); p != nil {
		return *p
	}
	return nil
}

// rig is a server on a scripted clock with an atomicgen on node 7, served
// as servertest serves one (HTTP/1.1 and unencrypted HTTP/2).
type rig struct {
	t     testing.TB
	clock *testClock
	srv   *server.Server
	gen   *countingGen
	url   string
	grpc  snowlabv1connect.IDServiceClient // gRPC over HTTP/2
	json  snowlabv1connect.IDServiceClient // Connect JSON over HTTP/1.1
	http1 *http.Client                     // HTTP/1.1, for send
}

type rigOpts struct {
	// layout is the server's and the generator's (zero: the default).
	layout snowlab.Layout
	fence  *snowlab.Fence
	lease  server.Lease
	config func(*snowlab.Config)
	hold   func()                          // countingGen.hold
	wrap   func(http.Handler) http.Handler // around the server's handler
	kernel func() clocksrc.Kernel          // server.Config.ReadKernel
	// clockMaxError is server.Config.ClockMaxError.
	clockMaxError time.Duration
	// limits, or tls, serve the handler as the command does
	// (servertest.ServeWith) within those limits, over TLS with tls;
	// clientTLS is then the clients'.
	limits         *server.Limits
	tls, clientTLS *tls.Config
	// peers and peerMaxOffset are server.Config.Peers and PeerMaxOffset.
	peers         server.PeerClocks
	peerMaxOffset time.Duration
}

func newRig(t testing.TB, o rigOpts) *rig {
	t.Helper()
	clock := newTestClock()
	srv, err := server.New(server.Config{Layout: o.layout, Now: clock.Now, RewindHold: 5 * time.Second,
		ReadKernel: o.kernel, ClockMaxError: o.clockMaxError, Peers: o.peers, PeerMaxOffset: o.peerMaxOffset})
	require.NoError(t, err)
	cfg := snowlab.Config{Node: 7, Layout: o.layout, Clock: clock.Clock(), Fence: o.fence}
	if o.config != nil {
		o.config(&cfg)
	}
	g, err := atomicgen.New(cfg)
	require.NoError(t, err)
	cg := &countingGen{Generator: g, hold: o.hold}
	srv.Use(cg, cfg, o.lease, 1)
	h := srv.Handler()
	if o.wrap != nil {
		h = o.wrap(h)
	}
	url := ""
	h2, h1 := client.H2CClient(), http.DefaultClient
	if o.limits != nil || o.tls != nil {
		lim := server.Limits{}
		if o.limits != nil {
			lim = *o.limits
		}
		url = servertest.ServeWith(t, srv, h, lim, o.tls)
		if o.tls != nil {
			h2, h1 = client.HTTPClient(o.clientTLS), &http.Client{Transport: &http.Transport{TLSClientConfig: o.clientTLS}}
		}
	} else {
		url = servertest.Serve(t, h)
	}
	return &rig{
		t: t, clock: clock, srv: srv, gen: cg, url: url, http1: h1,
		grpc: snowlabv1connect.NewIDServiceClient(h2, url, connect.WithGRPC()),
		json: snowlabv1connect.NewIDServiceClient(h1, url, connect.WithProtoJSON()),
	}
}

// get fetches path and returns its status and body.
func (r *rig) get(path string) (int, string) {
	r.t.Helper()
	return r.do(http.MethodGet, path, "", "")
}

func (r *rig) do(method, path, contentType, body string) (int, string) {
	r.t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, r.url+path, strings.NewReader(body))
	require.NoError(r.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return r.send(req)
}

// send sends req and returns the answer's status and body.
func (r *rig) send(req *http.Request) (int, string) {
	r.t.Helper()
	resp, err := r.http1.Do(req)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	return resp.StatusCode, string(b)
}

// metric reads a counter or a gauge from the server's registry, the sum
// of its series.
func (r *rig) metric(name string) float64 {
	r.t.Helper()
	mfs, err := r.srv.Registry().Gather()
	require.NoError(r.t, err)
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			switch {
			case m.Counter != nil:
				total += m.Counter.GetValue()
			case m.Gauge != nil:
				total += m.Gauge.GetValue()
			}
		}
		return total
	}
	r.t.Fatalf("no metric %s", name)
	return 0
}

// series reads one series of a counter from the server's registry, the
// one whose labels are labels (name, value, name, value…); 0 while it
// has none.
func (r *rig) series(name string, labels ...string) float64 {
	r.t.Helper()
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	mfs, err := r.srv.Registry().Gather()
	require.NoError(r.t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(want) {
				continue
			}
			for _, l := range m.GetLabel() {
				if want[l.GetName()] != l.GetValue() {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
