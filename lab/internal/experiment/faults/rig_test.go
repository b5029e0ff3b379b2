package faults

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

func TestLongestFalse(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	ev := func(pairs ...any) []sample {
		var out []sample
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, sample{at(pairs[i].(int)), pairs[i+1].(bool)})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		events []sample
		want   time.Duration
	}{
		{"none", nil, 0},
		{"always true", ev(0, true, 50, true), 0},
		{"one false span", ev(0, true, 50, false, 100, false, 150, true), 100 * time.Millisecond},
		{"the longer of two", ev(0, false, 20, true, 40, false, 140, true, 200, false, 210, true), 100 * time.Millisecond},
		{"false to the end", ev(0, true, 100, false, 400, false), 300 * time.Millisecond},
		{"false from the start", ev(0, false, 70, true), 70 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, longestFalse(tc.events)) })
	}
}

// The analysis finds an ID received twice (by two clients) and an ID a
// client received from a node id below one it had from it before.
func TestAnalysisChecks(t *testing.T) {
	l := snowlab.DefaultLayout
	id := func(ms int64, node, seq int) snowlab.ID {
		v, err := l.Compose(l.Epoch.Add(time.Duration(ms)*time.Millisecond), node, seq)
		require.NoError(t, err)
		return v
	}
	now := time.Now()
	good := &caller{ids: []snowlab.ID{id(10, 1, 0), id(10, 2, 0), id(11, 1, 0), id(9, 3, 0)},
		served: []served{{replica: 0, at: now, first: 0, n: 4}}, calls: 1, attempts: []attempt{{0, now, outcomeOK}}}
	a := &analysis{layout: l, callers: []*caller{good}}
	st := a.calls()
	assert.Equal(t, 4, st.IDs)
	assert.Zero(t, st.Duplicates)
	assert.Zero(t, st.OrderViolations)

	dupOther := &caller{ids: []snowlab.ID{id(11, 1, 0)}, served: []served{{replica: 1, at: now, first: 0, n: 1}}, calls: 1}
	backwards := &caller{ids: []snowlab.ID{id(20, 5, 3), id(20, 5, 2)}, served: []served{{replica: 2, at: now, first: 0, n: 2}}, calls: 1}
	a.callers = []*caller{good, dupOther, backwards}
	st = a.calls()
	assert.Equal(t, 1, st.Duplicates)
	assert.Equal(t, 1, st.OrderViolations)
	require.Len(t, st.Examples, 2)
	assert.Contains(t, strings.Join(st.Examples, "\n"), "received twice")
	assert.Contains(t, strings.Join(st.Examples, "\n"), "client 2: node 5's ID")

	r := a.replica(0, "r0")
	assert.Equal(t, []int{1, 2, 3}, r.Nodes)
	assert.Equal(t, 4, r.IDs)
	served := a.servedBy(0, 1)
	require.Len(t, served, 2)
	assert.Equal(t, l.Epoch.Add(11*time.Millisecond), lastTime(served))
	assert.Equal(t, l.Epoch.Add(10*time.Millisecond), firstTime(served))
}

// echo is a TCP server that writes back what it reads.
func echo(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// roundTrip writes a line through conn and times its echo (an error:
// none within d).
func roundTrip(c net.Conn, d time.Duration) (time.Duration, error) {
	start := time.Now()
	_ = c.SetDeadline(start.Add(d))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err == nil && line != "ping\n" {
		err = fmt.Errorf("echo %q", line)
	}
	return time.Since(start), err
}

// untilEnd is how long a call expected to succeed may take: until the
// test's end (storetest.UntilTestEnds), not a figure a loaded machine
// need not keep (5 s and 2 s were the bounds before). Calls expected to
// fail keep their short bounds: load only makes them fail sooner.
func untilEnd(t *testing.T) time.Duration {
	if d, ok := storetest.UntilTestEnds(t).Deadline(); ok {
		return time.Until(d)
	}
	return time.Hour
}

// A replica's links carry its bytes to the member, add latency each way,
// lose every byte while blackholed (one way or both), delay a chunk by a
// retransmission timeout when it is lost, and carry again once healed.
func TestLinks(t *testing.T) {
	l := newLinks([]string{"http://" + echo(t)})
	t.Cleanup(l.Close)
	eps, err := l.For(0)
	require.NoError(t, err)
	require.Len(t, eps, 1)
	addr := strings.TrimPrefix(eps[0], "http://")
	again, _ := l.For(0)
	assert.Equal(t, eps, again, "one set of links per replica")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}
	// A new link carries bytes and adds nothing to them: no toxic is on
	// it. (Its round trip was held under 100 ms before, which a loaded
	// machine misses with nothing on the link: a goroutine stopped for
	// 204 ms was seen at load average 27.)
	noToxics := func(what string) {
		t.Helper()
		for _, p := range l.proxies[0] {
			assert.Empty(t, p.Toxics.GetToxicArray(), "%s: toxics on %s", what, p.Name)
		}
	}
	c := dial()
	_, err = roundTrip(c, untilEnd(t))
	require.NoError(t, err)
	noToxics("a new link")

	require.NoError(t, l.Degrade(0, 100*time.Millisecond, 0, 0))
	rtt, err := roundTrip(dial(), untilEnd(t))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, rtt, 200*time.Millisecond, "100 ms each way")
	l.Heal(0)
	noToxics("healed")

	require.NoError(t, l.Degrade(0, 0, 0, 1))
	lossy := dial()
	lossy.SetDeadline(time.Now().Add(300 * time.Millisecond))
	_, err = roundTrip(lossy, 300*time.Millisecond)
	assert.Error(t, err, "every chunk lost: retransmitted after 200 ms, lost again, 400 ms…")
	l.Heal(0)

	for _, dirs := range [][]direction{{upstream, downstream}, {downstream}, {upstream}} {
		require.NoError(t, l.Blackhole(0, dirs...))
		_, err = roundTrip(dial(), 300*time.Millisecond)
		var ne net.Error
		require.True(t, errors.As(err, &ne) && ne.Timeout(), "blackholed %v: %v", dirs, err)
		l.Heal(0)
	}
	_, err = roundTrip(dial(), untilEnd(t))
	assert.NoError(t, err, "healed")
}

// member is a stand-in for an etcd member's peer port: it answers each
// request with its name.
func member(t *testing.T, name string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(name + " from " + r.Header.Get("X-Server-From")))
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// The peer proxy forwards a member's requests to another, refuses and
// closes those to or from a partitioned member until healed, and passes
// a request without X-Server-From except to a partitioned member.
func TestPeerProxy(t *testing.T) {
	p := newPeerProxy()
	t.Cleanup(p.Close)
	var addrs []string
	for i := range 3 {
		a, err := p.Add(i, member(t, fmt.Sprintf("m%d", i)))
		require.NoError(t, err)
		p.Name(i, fmt.Sprintf("id%d", i))
		addrs = append(addrs, a)
	}
	// get is a call expected to succeed; cut one expected to fail.
	var call func(from, to int, d time.Duration) (string, error)
	get := func(from, to int) (string, error) { return call(from, to, untilEnd(t)) }
	cut := func(from, to int) (string, error) { return call(from, to, 2*time.Second) }
	call = func(from, to int, d time.Duration) (string, error) {
		c := &http.Client{Timeout: d, Transport: &http.Transport{DisableKeepAlives: true}}
		req, _ := http.NewRequest(http.MethodGet, "http://"+addrs[to]+"/raft/stream/message/x", nil)
		if from >= 0 {
			req.Header.Set("X-Server-From", fmt.Sprintf("id%d", from))
		}
		resp, err := c.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	got, err := get(0, 1)
	require.NoError(t, err)
	assert.Equal(t, "m1 from id0", got)

	// A long-lived stream from m2 to m0 closes when m2 is cut off.
	stream, err := net.Dial("tcp", addrs[0])
	require.NoError(t, err)
	defer stream.Close()
	_, err = stream.Write([]byte("GET /raft/stream/msgapp/x HTTP/1.1\r\nHost: m0\r\nX-Server-From: id2\r\n\r\n"))
	require.NoError(t, err)
	br := bufio.NewReader(stream)
	status, err := br.ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, status, "200")

	p.Partition(2)
	_ = stream.SetReadDeadline(time.Now().Add(untilEnd(t)))
	_, err = io.Copy(io.Discard, br)
	assert.NoError(t, err, "the stream ends (EOF) rather than timing out")
	for _, tc := range []struct{ from, to int }{{2, 0}, {0, 2}, {-1, 2}} {
		_, err := cut(tc.from, tc.to)
		assert.Error(t, err, "from %d to %d while 2 is cut off", tc.from, tc.to)
	}
	got, err = get(0, 1)
	require.NoError(t, err, "the majority still talks")
	assert.Equal(t, "m1 from id0", got)
	got, err = get(-1, 1)
	require.NoError(t, err)
	assert.Equal(t, "m1 from ", got)

	p.Heal(2)
	got, err = get(2, 0)
	require.NoError(t, err)
	assert.Equal(t, "m0 from id2", got)
}

// The certificates make mutual TLS: a server with the server certificate
// and the CA as client CA accepts the lab's client and refuses a client
// without a certificate.
func TestCerts(t *testing.T) {
	c, err := newCerts(t.TempDir())
	require.NoError(t, err)
	cert, err := tls.LoadX509KeyPair(c.Cert, c.Key)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: c.caPool}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ok := &http.Client{Transport: &http.Transport{TLSClientConfig: c.ClientTLS()}}
	resp, err := ok.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	anon := c.ClientTLS()
	anon.Certificates = nil
	_, err = (&http.Client{Transport: &http.Transport{TLSClientConfig: anon}}).Get(srv.URL)
	assert.Error(t, err, "a client without a certificate")
}

// options that can never run are refused, naming what is wrong.
func TestExecuteRefuses(t *testing.T) {
	for _, tc := range []struct {
		o    options
		want string
	}{
		{options{Set: "medium", Snowidd: "x", Etcd: "y"}, `set "medium": want short or full`},
		{options{Scenarios: []string{"leader-killed", "meteor"}, Snowidd: "x", Etcd: "y"}, `no scenario "meteor" (want one of leader-killed, leader-killed-mtls, minority-partitioned, `},
		{options{Set: "short"}, "the snowidd and etcd binaries are required"},
		{options{Set: "short", Snowidd: "/no/such/snowidd", Etcd: "/no/such/etcd"}, "/no/such/snowidd"},
	} {
		_, err := execute(t.Context(), tc.o)
		require.ErrorIs(t, err, errOptions)
		assert.ErrorContains(t, err, tc.want)
	}
	short, err := pick(options{Set: "short"})
	require.NoError(t, err)
	full, err := pick(options{Set: "full"})
	require.NoError(t, err)
	assert.Less(t, len(short), len(full))
	for _, s := range short {
		assert.True(t, s.Short, s.Name)
	}
	for _, s := range full {
		_, err := s.layout()
		assert.NoError(t, err, s.Name)
	}
}

// scrape finds a series by its name and exact labels in Prometheus text,
// as etcd and snowidd write it, and says which it did not find.
func TestScrape(t *testing.T) {
	const text = `# HELP etcd_server_is_leader Whether or not this member is a leader.
# TYPE etcd_server_is_leader gauge
etcd_server_is_leader 1
# TYPE snowidd_clock_peer_offset_seconds gauge
snowidd_clock_peer_offset_seconds{peer="http://127.0.0.1:1"} -2.5
snowidd_clock_peer_offset_seconds{peer="http://127.0.0.1:2"} 0.25
# TYPE x_total counter
x_total{a="1",b="2"} 7
`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(text)) }))
	t.Cleanup(srv.Close)
	get := func(name string, labels ...string) (float64, error) {
		return scrape(srv.Client(), srv.URL, "r0", name, labels...)
	}
	v, err := get("etcd_server_is_leader")
	require.NoError(t, err)
	assert.Equal(t, 1.0, v)
	v, err = get("snowidd_clock_peer_offset_seconds", "peer", "http://127.0.0.1:2")
	require.NoError(t, err)
	assert.Equal(t, 0.25, v)
	v, err = get("x_total", "b", "2", "a", "1")
	require.NoError(t, err)
	assert.Equal(t, 7.0, v, "labels in any order")
	_, err = get("x_total", "a", "1")
	assert.ErrorContains(t, err, `no x_total["a" "1"] in r0's metrics`, "labels match exactly")
	_, err = get("snowidd_clock_peer_offset_seconds")
	assert.Error(t, err, "a labelled series is not the unlabelled one")
}
