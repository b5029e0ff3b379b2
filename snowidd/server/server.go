package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
	"github.com/snowlab/snowlab/snowidd/idservice"
)

// MaxBatch is the most IDs one NextIDs call returns, the IDService's
// limit that its clients check too (idservice.MaxBatch).
const MaxBatch = idservice.MaxBatch

// Defaults for the zero Config fields.
const (
	DefaultRewindHold   = 5 * time.Second
	DefaultMaxBodyBytes = 4 << 10
)

// Lease is what the server reads of the lease its generator mints under;
// *nodeid.Lease implements it.
type Lease interface {
	// Lost is closed once the lease is lost.
	Lost() <-chan struct{}
	// Err is the last refresh's error, or the loss.
	Err() error
	// ReservedUntil is the end of the durable reservation: the generator
	// refuses (ErrNoReservation) past it.
	ReservedUntil() time.Time
	// Nodes is the range of node ids held.
	Nodes() (first, count int)
}

// Config configures a Server. The zero value is usable.
type Config struct {
	// Layout decodes IDs in Decode; the zero Layout is the default. It
	// must be the layout the generators mint with.
	Layout snowlab.Layout
	// RewindHold is how long the replica reports not ready after a call
	// was refused with snowlab.ErrClockBackwards: 0 is DefaultRewindHold.
	RewindHold time.Duration
	// MaxBodyBytes bounds a request message; 0 is DefaultMaxBodyBytes.
	// Every valid request is a few bytes. A larger one is answered HTTP
	// 413 in the Connect protocol, ResourceExhausted in gRPC and gRPC-Web.
	MaxBodyBytes int
	// Now is the time readiness is judged by (rewind hold, reservation)
	// and the layout's horizon measured from; nil is time.Now. Tests
	// script it.
	Now func() time.Time
	// ReadKernel reads the kernel's clock discipline: at every scrape for
	// the snowidd_clock_* gauges, and for readiness when ClockMaxError is
	// set. nil is clocksrc.ReadKernel; tests script the kernel's answer.
	ReadKernel func() clocksrc.Kernel
	// ClockMaxError, when above 0, holds readiness while the kernel
	// reports the clock unsynchronized, its maximum error above
	// ClockMaxError, or says nothing (a system other than Linux). 0 is
	// off.
	ClockMaxError time.Duration
	// Peers, when set, are the other replicas' clocks as estimated from
	// this one's (snowidd -peers): exported, and with PeerMaxOffset set,
	// read for readiness.
	Peers PeerClocks
	// PeerMaxOffset, when above 0, holds readiness while this replica's
	// clock is further than it from the median of its peers' and its own
	// (FleetOffset), beyond the estimate's error. It needs Peers. 0 is
	// off.
	PeerMaxOffset time.Duration
}

// Server serves snowlab.v1.IDService, health, reflection and metrics. It
// is safe for concurrent use.
type Server struct {
	cfg    Config
	layout snowlab.Layout
	mux    *http.ServeMux
	reg    *prometheus.Registry
	met    *metrics
	conns  connMetrics

	cur      atomic.Pointer[minter]
	draining atomic.Bool
	rewindAt atomic.Int64 // Unix ns of the last ErrClockBackwards; 0: none

	statsMu sync.Mutex    // orders Use with a scrape of the generator stats
	retired snowlab.Stats // the stats of generators no longer in use
}

// minter is what the replica mints with now: a generator and its lease, or
// why there is none.
type minter struct {
	gen   snowlab.Generator
	lease Lease // nil for static node ids
	nodes string
	why   string // when gen is nil
	// fence is the generator's (nil: none), and slack how far behind its
	// last tick the clock may be before a call is refused (rewindSlack).
	fence *snowlab.Fence
	slack time.Duration
}

// New returns a Server that holds no generator yet: it is not ready and
// refuses minting calls (Unavailable) until Use.
func New(cfg Config) (*Server, error) {
	if cfg.RewindHold < 0 {
		return nil, fmt.Errorf("%w: snowidd: rewind hold %v is negative", snowlab.ErrInvalidConfig, cfg.RewindHold)
	}
	if cfg.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("%w: snowidd: max body %d bytes is negative", snowlab.ErrInvalidConfig, cfg.MaxBodyBytes)
	}
	if cfg.ClockMaxError < 0 {
		return nil, fmt.Errorf("%w: snowidd: clock max error %v is negative", snowlab.ErrInvalidConfig, cfg.ClockMaxError)
	}
	if cfg.PeerMaxOffset < 0 || cfg.PeerMaxOffset > 0 && cfg.Peers == nil {
		return nil, fmt.Errorf("%w: snowidd: peer max offset %v: want 0, or more than 0 with peers to compare with", snowlab.ErrInvalidConfig, cfg.PeerMaxOffset)
	}
	if cfg.RewindHold == 0 {
		cfg.RewindHold = DefaultRewindHold
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ReadKernel == nil {
		cfg.ReadKernel = clocksrc.ReadKernel
	}
	layout := cfg.Layout.OrDefault()
	if err := layout.Validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, layout: layout, reg: prometheus.NewRegistry()}
	s.cur.Store(&minter{why: "starting: no lease acquired yet"})
	s.met = newMetrics(s)
	s.conns = newConnMetrics(s.reg)
	s.routes()
	return s, nil
}

// Use makes the server mint with gen, built on cfg (its node ids are
// cfg.Node..cfg.Node+count-1), whose node ids are held by lease (nil for
// static node ids, which nothing can take away). The previous generator,
// if any, is no longer called. After a rewind was refused, readiness reads
// cfg's Fence, Policy, MaxWait and MaxLead to tell whether the clock is
// still too far behind the generator's last tick for a call to succeed.
func (s *Server) Use(gen snowlab.Generator, cfg snowlab.Config, lease Lease, count int) {
	first := cfg.Node
	nodes := fmt.Sprintf("node id %d", first)
	if count > 1 {
		nodes = fmt.Sprintf("node ids %d..%d", first, first+count-1)
	}
	s.swap(&minter{gen: gen, lease: lease, nodes: nodes, fence: cfg.Fence, slack: rewindSlack(cfg)})
}

// rewindSlack is how far the clock may be behind the start of a
// generator's last tick before its calls are refused: MaxWait (0 is the
// default, negative refuses every rewind), and under Monotonic its MaxLead
// on top (a lead up to MaxLead is the policy working, not a rewind).
func rewindSlack(cfg snowlab.Config) time.Duration {
	slack := cfg.MaxWait
	switch {
	case slack == 0:
		slack = snowlab.DefaultMaxWait
	case slack < 0:
		slack = 0
	}
	if cfg.Policy == snowlab.Monotonic {
		slack += cfg.MaxLead
	}
	return slack
}

// Unuse stops minting: calls are refused (Unavailable) and the replica is
// not ready, for the reason why, until the next Use.
func (s *Server) Unuse(why string) { s.swap(&minter{why: why}) }

func (s *Server) swap(m *minter) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if old := s.cur.Swap(m); old.gen != nil {
		s.retired = s.retired.Add(old.gen.Stats())
	}
}

// Drain makes the replica not ready and refuses every later minting call
// (Unavailable): call it on SIGTERM, then shut the HTTP server down, which
// lets the calls in flight finish.
func (s *Server) Drain() { s.draining.Store(true) }

// Stats is the sum of the slow paths of every generator the server has
// used.
func (s *Server) Stats() snowlab.Stats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	st := s.retired
	if g := s.cur.Load().gen; g != nil {
		st = st.Add(g.Stats())
	}
	return st
}

// Handler is the whole HTTP surface: the IDService, grpc.health.v1,
// gRPC reflection (v1 and v1alpha), GET /healthz, /readyz, /clock and
// /metrics.
func (s *Server) Handler() http.Handler { return s.mux }

// Registry is the Prometheus registry /metrics serves.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	path, h := snowlabv1connect.NewIDServiceHandler(&idService{s},
		connect.WithInterceptors(s.met.interceptor()),
		connect.WithConditionalHandlerOptions(s.met.codecOptions),
		connect.WithReadMaxBytes(s.cfg.MaxBodyBytes),
		// Answers go uncompressed whatever the client accepts: gzip of a
		// batch costs several times what minting and framing it does,
		// and an ID service answers over a LAN. (A gzipped request is
		// still read.)
		connect.WithCompressMinBytes(math.MaxInt32),
	)
	s.mux.Handle(path, guard(h, s.met, s.cfg.MaxBodyBytes))
	checker := &healthChecker{s}
	s.mux.Handle(grpchealth.NewHandler(checker))
	reflector := grpcreflect.NewStaticReflector(snowlabv1connect.IDServiceName, grpchealth.HealthV1ServiceName)
	s.mux.Handle(grpcreflect.NewHandlerV1(reflector))
	s.mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector))
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if why := s.NotReady(); why != "" {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready: " + why + "\n"))
			return
		}
		_, _ = w.Write([]byte("ready: " + s.cur.Load().nodes + "\n"))
	})
	s.mux.HandleFunc("GET "+ClockPath, serveClock(s.cfg.Now))
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg}))
}

// idService implements snowlabv1connect.IDServiceHandler.
type idService struct{ s *Server }

var _ snowlabv1connect.IDServiceHandler = (*idService)(nil)

// generator returns the generator to mint with, or why there is none.
func (s *Server) generator() (snowlab.Generator, error) {
	if s.draining.Load() {
		return nil, ErrDraining
	}
	m := s.cur.Load()
	if m.gen == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoLease, m.why)
	}
	return m.gen, nil
}

// refuse notes what a refusal says about readiness and wraps it.
func (s *Server) refuse(err error) error {
	if errors.Is(err, snowlab.ErrClockBackwards) {
		s.rewindAt.Store(s.cfg.Now().UnixNano())
		s.met.clockRefusals.Inc()
	}
	return refusal(err)
}

// gone is the refusal of a call whose caller went away while it minted
// (a generator waits out a tick or a short rewind): its IDs are dropped,
// a gap, not counted as issued, and the call counts as Canceled or
// DeadlineExceeded rather than ok.
func gone(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return refusal(err)
	}
	return nil
}

func (i *idService) NextID(ctx context.Context, _ *connect.Request[snowlabv1.NextIDRequest]) (*connect.Response[snowlabv1.NextIDResponse], error) {
	g, err := i.s.generator()
	if err != nil {
		return nil, refusal(err)
	}
	id, err := g.NextID()
	if err != nil {
		return nil, i.s.refuse(err)
	}
	if err := gone(ctx); err != nil {
		return nil, err
	}
	i.s.met.issued.Inc()
	return connect.NewResponse(&snowlabv1.NextIDResponse{Id: uint64(id)}), nil
}

func (i *idService) NextIDs(ctx context.Context, req *connect.Request[snowlabv1.NextIDsRequest]) (*connect.Response[snowlabv1.NextIDsResponse], error) {
	n := req.Msg.GetCount()
	if n < 1 || n > MaxBatch {
		return nil, badCount(n)
	}
	g, err := i.s.generator()
	if err != nil {
		return nil, refusal(err)
	}
	// The generator writes straight into the response's slice: an ID is
	// an int64 and a fixed64 field a uint64, one layout, and the IDs are
	// never negative.
	ids := make([]uint64, n)
	got, err := g.NextIDs(unsafe.Slice((*snowlab.ID)(unsafe.Pointer(&ids[0])), n))
	if err != nil {
		// All or nothing: the got IDs minted before the refusal are
		// dropped, never handed out (a gap, not a duplicate).
		_ = got
		return nil, i.s.refuse(err)
	}
	if err := gone(ctx); err != nil {
		return nil, err
	}
	i.s.met.issued.Add(float64(n))
	return connect.NewResponse(&snowlabv1.NextIDsResponse{Ids: ids}), nil
}

func (i *idService) Decode(_ context.Context, req *connect.Request[snowlabv1.DecodeRequest]) (*connect.Response[snowlabv1.DecodeResponse], error) {
	v := req.Msg.GetId()
	if v > math.MaxInt64 {
		return nil, refusal(fmt.Errorf("%w: %d is above 2^63-1, the largest ID", snowlab.ErrInvalidID, v))
	}
	id := snowlab.ID(v)
	p := i.s.layout.Decode(id)
	return connect.NewResponse(&snowlabv1.DecodeResponse{
		Time:     timestamppb.New(p.Time),
		Node:     uint32(p.Node),
		Sequence: uint32(p.Seq),
		Id:       v,
		Base32:   id.Base32(),
	}), nil
}
