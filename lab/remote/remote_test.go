package remote

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/lab/workload"
)

// serveH2C serves h on a loopback server that speaks HTTP/1.1 and
// unencrypted HTTP/2, as snowidd does.
func serveH2C(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// webTrailer is a gRPC-Web trailer frame holding lines.
func webTrailer(lines string) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{0x80}, uint32(len(lines))), lines...)
}

// answer is what a hand-served replica writes back.
type answer struct {
	status  int
	header  map[string]string
	body    []byte
	trailer map[string]string
}

func (a answer) write(w http.ResponseWriter) {
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
	for k, v := range a.trailer {
		w.Header().Set(http.TrailerPrefix+k, v)
	}
}

func grpcOK(msg []byte) answer {
	return answer{status: 200, header: map[string]string{"Content-Type": "application/grpc"}, body: grpcFrame(msg),
		trailer: map[string]string{"Grpc-Status": "0"}}
}

// webOK is a gRPC-Web answer with msg and a trailer frame of status 0, its
// lines as connect-go writes them (lower case, each ended by CRLF).
func webOK(msg []byte) answer {
	return webAnswer(cat(grpcFrame(msg), webTrailer("grpc-status: 0\r\n")))
}

func webAnswer(body []byte) answer {
	return answer{status: 200, header: map[string]string{"Content-Type": "application/grpc-web+proto"}, body: body}
}

// TestProtocols: each protocol sends the request its spec asks for and
// reads good answers; a bad answer is an error wrapping ErrCall.
func TestProtocols(t *testing.T) {
	idMsg := cat([]byte{0x09}, fixed(42))
	idsMsg := cat([]byte{0x0a, 24}, fixed(1), fixed(2), fixed(3))
	for _, tc := range []struct {
		name  string
		proto Protocol
		count int // 0: NextID
		ans   answer
		want  []uint64
		err   string // "" for success
	}{
		{"grpc NextID", GRPC, 0, grpcOK(idMsg), []uint64{42}, ""},
		{"grpc NextIDs", GRPC, 3, grpcOK(idsMsg), []uint64{1, 2, 3}, ""},
		{"grpc error trailer", GRPC, 3, answer{status: 200, header: map[string]string{"Content-Type": "application/grpc"},
			trailer: map[string]string{"Grpc-Status": "3", "Grpc-Message": "count%200%3A%20want%201..100000"}}, nil,
			"grpc-status 3: count 0: want 1..100000"},
		{"grpc trailers-only", GRPC, 0, answer{status: 200, header: map[string]string{"Content-Type": "application/grpc",
			"Grpc-Status": "14", "Grpc-Message": "clock moved backwards"}}, nil, "grpc-status 14: clock moved backwards"},
		{"grpc no status", GRPC, 0, answer{status: 200, body: grpcFrame(idMsg)}, nil, "no grpc-status"},
		{"grpc HTTP error", GRPC, 0, answer{status: 503}, nil, "HTTP 503"},
		{"grpc short frame", GRPC, 0, answer{status: 200, body: []byte{0, 0}, trailer: map[string]string{"Grpc-Status": "0"}}, nil, "truncated"},
		{"grpc frame length", GRPC, 0, answer{status: 200, body: grpcFrame(idMsg)[:10], trailer: map[string]string{"Grpc-Status": "0"}}, nil, "frame of 9 bytes, 5 follow"},
		{"grpc compressed", GRPC, 0, answer{status: 200, body: append([]byte{1}, grpcFrame(idMsg)[1:]...), trailer: map[string]string{"Grpc-Status": "0"}}, nil, "compressed"},
		{"grpc malformed message", GRPC, 0, grpcOK([]byte{0x09, 1, 2}), nil, "fixed64 truncated"},
		{"grpc too few IDs", GRPC, 3, grpcOK(cat([]byte{0x09}, fixed(1))), nil, "NextIDs(3) answered 1 IDs"},
		{"grpc-web NextID", GRPCWeb, 0, webOK(idMsg), []uint64{42}, ""},
		{"grpc-web NextIDs", GRPCWeb, 3, webOK(idsMsg), []uint64{1, 2, 3}, ""},
		{"grpc-web trailer unterminated, mixed case", GRPCWeb, 3, webAnswer(cat(grpcFrame(idsMsg), webTrailer("Grpc-Status: 0\r\nx-extra: 1"))),
			[]uint64{1, 2, 3}, ""},
		{"grpc-web error trailer", GRPCWeb, 3, webAnswer(cat(grpcFrame(nil)[:0], webTrailer("grpc-status: 3\r\ngrpc-message: count%200\r\n"))), nil,
			"grpc-status 3: count 0"},
		{"grpc-web error after a message", GRPCWeb, 0, webAnswer(cat(grpcFrame(idMsg), webTrailer("grpc-status: 14\r\ngrpc-message: lease lost\r\n"))), nil,
			"grpc-status 14: lease lost"},
		{"grpc-web trailers-only", GRPCWeb, 0, answer{status: 200, header: map[string]string{"Content-Type": "application/grpc-web+proto",
			"Grpc-Status": "14", "Grpc-Message": "clock moved backwards"}}, nil, "grpc-status 14: clock moved backwards"},
		{"grpc-web missing trailer", GRPCWeb, 0, webAnswer(grpcFrame(idMsg)), nil, "no gRPC-Web trailer frame"},
		{"grpc-web empty body", GRPCWeb, 0, webAnswer(nil), nil, "no grpc-status"},
		{"grpc-web HTTP error", GRPCWeb, 0, answer{status: 415}, nil, "HTTP 415"},
		{"grpc-web malformed frame", GRPCWeb, 0, webAnswer(cat(grpcFrame(idMsg), []byte{0x80, 0, 0})), nil, "truncated (3 bytes)"},
		{"connect+proto NextID", ConnectProto, 0, answer{status: 200, body: idMsg}, []uint64{42}, ""},
		{"connect+proto NextIDs unpacked", ConnectProto, 3, answer{status: 200,
			body: cat([]byte{0x09}, fixed(7), []byte{0x09}, fixed(8), []byte{0x09}, fixed(9))}, []uint64{7, 8, 9}, ""},
		{"connect+proto error", ConnectProto, 3, answer{status: 400, body: []byte(`{"code":"invalid_argument","message":"count 0"}`)}, nil,
			"invalid_argument: count 0"},
		{"connect+proto no id", ConnectProto, 0, answer{status: 200}, nil, "answered no id"},
		{"connect+proto length past the end", ConnectProto, 3, answer{status: 200, body: []byte{0x0a, 24, 1}}, nil, "past the end"},
		{"connect+json NextID", ConnectJSON, 0, answer{status: 200, body: []byte(`{"id":"18446744073709551615"}`)}, []uint64{1<<64 - 1}, ""},
		{"connect+json NextIDs", ConnectJSON, 3, answer{status: 200, body: []byte(`{"ids":["1","2","3"]}`)}, []uint64{1, 2, 3}, ""},
		{"connect+json error", ConnectJSON, 0, answer{status: 503, body: []byte(`{"code":"unavailable","message":"lease lost"}`)}, nil,
			"unavailable: lease lost"},
		{"connect+json not JSON", ConnectJSON, 0, answer{status: 502, body: []byte(`<html>`)}, nil, "HTTP 502"},
		{"connect+json number", ConnectJSON, 0, answer{status: 200, body: []byte(`{"id":42}`)}, nil, "response"},
		{"connect+json not decimal", ConnectJSON, 3, answer{status: 200, body: []byte(`{"ids":["1","x","3"]}`)}, nil, `id "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got http.Header
			var gotBody []byte
			url := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Clone()
				gotBody, _ = io.ReadAll(r.Body)
				method := "NextID"
				if tc.count > 0 {
					method = "NextIDs"
				}
				assert.Equal(t, "/snowlab.v1.IDService/"+method, r.URL.Path)
				assert.Equal(t, http.MethodPost, r.Method)
				switch tc.proto {
				case GRPC:
					assert.Equal(t, 2, r.ProtoMajor, "gRPC goes over HTTP/2")
				case GRPCWeb:
					assert.Equal(t, 1, r.ProtoMajor, "gRPC-Web goes over HTTP/1.1")
				}
				tc.ans.write(w)
			})
			c, err := newConn(url, tc.proto, nil)
			require.NoError(t, err)
			var ids []uint64
			if tc.count == 0 {
				var id uint64
				id, err = c.nextID()
				ids = []uint64{id}
			} else {
				ids, err = c.nextIDs(tc.count)
			}
			if tc.err != "" {
				require.ErrorIs(t, err, ErrCall)
				assert.Contains(t, err.Error(), tc.err)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tc.want, ids)
			}
			var req []byte
			if tc.count > 0 {
				req = nextIDsRequest(uint32(tc.count))
			}
			switch tc.proto {
			case GRPC:
				assert.Equal(t, "application/grpc", got.Get("Content-Type"))
				assert.Equal(t, "trailers", got.Get("Te"))
				assert.Equal(t, grpcFrame(req), gotBody)
			case GRPCWeb:
				assert.Equal(t, "application/grpc-web+proto", got.Get("Content-Type"))
				assert.Equal(t, "1", got.Get("X-Grpc-Web"))
				assert.Empty(t, got.Get("Te"), "HTTP/1.1 has no trailers a browser can read")
				assert.Equal(t, grpcFrame(req), gotBody)
			case ConnectProto:
				assert.Equal(t, "application/proto", got.Get("Content-Type"))
				assert.Equal(t, string(req), string(gotBody), "request")
			case ConnectJSON:
				assert.Equal(t, "application/json", got.Get("Content-Type"))
				want := `{}`
				if tc.count > 0 {
					want = fmt.Sprintf(`{"count":%d}`, tc.count)
				}
				assert.JSONEq(t, want, string(gotBody))
			}
		})
	}
}

func TestParseProtocol(t *testing.T) {
	for _, p := range Protocols {
		got, err := ParseProtocol(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	_, err := ParseProtocol("grpc-web+json")
	require.ErrorIs(t, err, ErrProtocol)
	assert.Contains(t, err.Error(), `"grpc-web+json" (want one of grpc, grpc-web, connect+proto, connect+json)`)
	assert.Equal(t, "Protocol(9)", Protocol(9).String())
}

// counter is a hand-served Connect JSON replica minting 1, 2, 3, … and
// counting calls by the count asked for.
type counter struct {
	mu    sync.Mutex
	next  uint64
	calls []int
}

func (c *counter) serve(w http.ResponseWriter, r *http.Request) {
	var req struct{ Count int }
	_ = json.NewDecoder(r.Body).Decode(&req)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, req.Count)
	if !strings.HasSuffix(r.URL.Path, "/NextIDs") {
		c.next++
		fmt.Fprintf(w, `{"id":"%d"}`, c.next)
		return
	}
	ids := make([]string, req.Count)
	for i := range ids {
		c.next++
		ids[i] = strconv.FormatUint(c.next, 10)
	}
	_ = json.NewEncoder(w).Encode(map[string][]string{"ids": ids})
}

func TestSubject(t *testing.T) {
	var c counter
	url := serveH2C(t, c.serve)

	s, err := Subject(url, ConnectJSON, 10, snowlab.Layout{})
	require.NoError(t, err)
	assert.Equal(t, "snowidd/connect+json/NextIDs(10)", s.Name)
	assert.True(t, s.Strict)
	assert.Equal(t, subject.OrderCaller, s.Order)
	assert.InDelta(t, 4_096_000, s.Ceiling(), 1, "one node id's ceiling under the default layout")
	m, err := s.New()
	require.NoError(t, err)
	for want := uint64(1); want <= 25; want++ {
		id, err := m.Next()
		require.NoError(t, err)
		assert.Equal(t, want, id.Lo)
	}
	assert.Equal(t, []int{10, 10, 10}, c.calls, "Next refills a batch of 10 at a time")

	c.calls = nil
	dst := make([]subject.ID, 250_000)
	n, err := subject.Fill(m, dst)
	require.NoError(t, err)
	assert.Equal(t, len(dst), n)
	assert.Equal(t, []int{MaxBatch, MaxBatch, 50_000}, c.calls, "Fill asks in calls of at most MaxBatch")
	assert.Equal(t, uint64(31), dst[0].Lo, "after the 30 the batches took")

	s, err = Subject(url, GRPC, 0, snowlab.Layout{})
	require.NoError(t, err)
	assert.Equal(t, "snowidd/grpc/NextID", s.Name)

	// On three node ids: three ceilings, and order per node id, which
	// the minter names.
	s1 := OnNodes(s, 1)
	assert.Equal(t, subject.OrderCaller, s1.Order)
	assert.Equal(t, 1, s1.Nodes)
	s3 := OnNodes(s, 3)
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
	for _, batch := range []int{-1, MaxBatch + 1} {
		_, err := Subject("http://127.0.0.1:1", GRPC, batch, snowlab.Layout{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), fmt.Sprintf("batch %d", batch))
	}
	_, err := Subject("127.0.0.1:8080", GRPC, 0, snowlab.Layout{})
	assert.ErrorContains(t, err, `"127.0.0.1:8080"`)
	_, err = Subject("http://127.0.0.1:1", Protocol(9), 0, snowlab.Layout{})
	assert.ErrorIs(t, err, ErrProtocol)
	_, err = Subject("http://127.0.0.1:1", GRPC, 0, snowlab.Layout{NodeBits: 30})
	assert.Error(t, err, "a layout that does not fit")
	_, err = SubjectTLS("http://127.0.0.1:1", GRPC, 0, snowlab.Layout{}, &tls.Config{})
	assert.ErrorContains(t, err, "with a TLS configuration: want https://HOST:PORT")
}

// TestTLS: to an https:// base every protocol goes over TLS, gRPC and
// Connect on HTTP/2 negotiated by ALPN, gRPC-Web on HTTP/1.1; a server
// the configuration does not trust is an error. (The snowidd module's
// replicatest tests mutual TLS against the real server.)
func TestTLS(t *testing.T) {
	idMsg := cat([]byte{0x09}, fixed(42))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			http.Error(w, "not over TLS", http.StatusBadRequest)
			return
		}
		switch r.Header.Get("Content-Type") {
		case "application/grpc":
			assert.Equal(t, 2, r.ProtoMajor, "gRPC over HTTP/2")
			grpcOK(idMsg).write(w)
		case "application/grpc-web+proto":
			assert.Equal(t, 1, r.ProtoMajor, "gRPC-Web over HTTP/1.1")
			webOK(idMsg).write(w)
		case "application/proto":
			assert.Equal(t, 2, r.ProtoMajor, "Connect over HTTP/2")
			answer{status: 200, body: idMsg}.write(w)
		default:
			assert.Equal(t, 2, r.ProtoMajor, "Connect JSON over HTTP/2")
			answer{status: 200, body: []byte(`{"id":"42"}`)}.write(w)
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	require.True(t, strings.HasPrefix(srv.URL, "https://"))
	trusting := srv.Client().Transport.(*http.Transport).TLSClientConfig
	for _, p := range Protocols {
		c, err := newConn(srv.URL, p, trusting)
		require.NoError(t, err)
		id, err := c.nextID()
		require.NoError(t, err, p.String())
		assert.Equal(t, uint64(42), id, p.String())
	}
	c, err := newConn(srv.URL, GRPC, nil) // the system's roots
	require.NoError(t, err)
	_, err = c.nextID()
	require.ErrorIs(t, err, ErrCall)
	assert.Contains(t, err.Error(), "certificate")
}

// TestBatchCallersCallAtOnce: G goroutines taking IDs one at a time from a
// batch subject keep G NextIDs calls in flight, each goroutine refilling
// its own batch, and each goroutine's IDs still increase. The replica
// answers no call until G are in flight: one shared batch, refilled by
// one caller at a time, would leave the first call waiting for the rest,
// which it answers as an error after a timeout instead of hanging.
func TestBatchCallersCallAtOnce(t *testing.T) {
	const g, batch = 4, 10
	var c counter
	var mu sync.Mutex
	inFlight, maxInFlight := 0, 0
	all := make(chan struct{})     // closed when g calls were in flight at once
	timeout := make(chan struct{}) // closed 10s on: every call, waiting or not, fails
	stop := time.AfterFunc(10*time.Second, func() { close(timeout) })
	t.Cleanup(func() { stop.Stop() })
	url := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		maxInFlight = max(maxInFlight, inFlight)
		if inFlight == g {
			select {
			case <-all:
			default:
				close(all)
			}
		}
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		select {
		case <-all:
			c.serve(w, r)
		case <-timeout:
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"code":"unavailable","message":"test replica: fewer than %d calls in flight after 10s"}`, g)
		}
	})
	s, err := Subject(url, ConnectJSON, batch, snowlab.Layout{})
	require.NoError(t, err)
	res, err := workload.Burst(s, workload.BurstConfig{IDs: g * batch * 3, Goroutines: g, Repeats: 1}, nil)
	require.NoError(t, err)
	assert.Zero(t, res.Check.Errors, res.Check.FirstError)
	assert.Equal(t, g*batch*3, res.Check.IDs)
	assert.Zero(t, res.Check.Duplicates)
	assert.Zero(t, res.Check.OrderViolations, "each goroutine's IDs increase")
	assert.Equal(t, g, maxInFlight)
	assert.Len(t, c.calls, g*3, "each goroutine refilled its batch 3 times")
}

// TestClient: a Client's calls answer IDs, a refusal's code in each
// protocol (CodeOf), a context that ends stops the call, and Clock reads
// GET /clock.
func TestClient(t *testing.T) {
	idMsg := cat([]byte{0x09}, fixed(42))
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	url := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/clock":
			_, _ = w.Write([]byte(`{"unix_nano":"1733000000123456789"}`))
		case r.Header.Get("X-Hang") != "":
			<-hang
		case r.Header.Get("Content-Type") == "application/grpc":
			answer{status: 200, header: map[string]string{"Content-Type": "application/grpc", "Grpc-Status": "14", "Grpc-Message": "lease%20lost"}}.write(w)
		case r.Header.Get("Content-Type") == "application/json":
			answer{status: 503, body: []byte(`{"code":"unavailable","message":"draining"}`)}.write(w)
		default:
			answer{status: 200, body: idMsg}.write(w)
		}
	})
	ok, err := NewClient(url, ConnectProto, nil)
	require.NoError(t, err)
	id, err := ok.NextID(t.Context())
	require.NoError(t, err)
	assert.Equal(t, uint64(42), id)
	assert.Equal(t, url, ok.URL())
	for _, p := range []Protocol{GRPC, ConnectJSON} {
		c, err := NewClient(url, p, nil)
		require.NoError(t, err)
		_, err = c.NextID(t.Context())
		require.ErrorIs(t, err, ErrCall)
		assert.Equal(t, "unavailable", CodeOf(err), "%s: %v", p, err)
	}
	_, err = ok.NextIDs(t.Context(), 0)
	assert.ErrorContains(t, err, "NextIDs(0)")
	ns, rtt, err := ok.Clock(t.Context())
	require.NoError(t, err)
	assert.Equal(t, int64(1733000000123456789), ns)
	assert.Positive(t, rtt)

	hung, err := NewClient(url, ConnectProto, nil)
	require.NoError(t, err)
	hung.c.hc.Transport = headerTransport{hung.c.hc.Transport, "X-Hang"}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = hung.NextID(ctx)
	require.ErrorIs(t, err, ErrCall)
	assert.Equal(t, "", CodeOf(err), "a call that never came back has no status")
}

// headerTransport adds a header to every request.
type headerTransport struct {
	http.RoundTripper
	name string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, "1")
	return h.RoundTripper.RoundTrip(r)
}
