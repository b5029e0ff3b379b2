package server

import (
	"context"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// metrics are the server's Prometheus series. The generator's slow paths
// and the lease state are read at scrape time, so a call pays only for
// the counters it moves.
type metrics struct {
	issued        prometheus.Counter
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	clockRefusals prometheus.Counter
	rejected      *prometheus.CounterVec

	badContentType prometheus.Counter // rejected{reason="content_type"}
	bodyTooLarge   prometheus.Counter // rejected{reason="body_too_large"}

	// timeFormat is how the JSON codec writes Decode's time: the
	// layout's, as snowid prints it (idtext.TimeFormat).
	timeFormat string
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		timeFormat: idtext.TimeFormat(s.layout),
		issued: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "snowidd_ids_issued_total",
			Help: "IDs handed out to callers.",
		}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snowidd_requests_total",
			Help: "IDService calls answered, by method and status code: those that reached their method, and bodies that could not be decoded (invalid_argument). Requests refused before decoding count in snowidd_rejected_requests_total.",
		}, []string{"method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "snowidd_request_duration_seconds",
			Help:    "Time spent in IDService methods, by method.",
			Buckets: []float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3},
		}, []string{"method"}),
		clockRefusals: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "snowidd_clock_refusals_total",
			Help: "Calls refused because the clock moved backwards past the generator's MaxWait.",
		}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snowidd_rejected_requests_total",
			Help: "Requests refused before their body was decoded, by reason: content_type (415), body_too_large (413, to Connect protocol calls; a gRPC or gRPC-Web call over the limit is answered ResourceExhausted, counted nowhere).",
		}, []string{"reason"}),
	}
	m.badContentType = m.rejected.WithLabelValues("content_type")
	m.bodyTooLarge = m.rejected.WithLabelValues("body_too_large")
	s.reg.MustRegister(m.issued, m.requests, m.latency, m.clockRefusals, m.rejected)
	s.reg.MustRegister(generatorStats(s)...)
	s.reg.MustRegister(stateGauges(s)...)
	s.reg.MustRegister(
		newClockCollector(s.cfg.ReadKernel),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	if s.cfg.Peers != nil {
		s.reg.MustRegister(newPeerCollector(s.cfg.Peers))
	}
	return m
}

// generatorStats are the generator's counters, read from its Stats at
// each scrape.
func generatorStats(s *Server) []prometheus.Collector {
	stat := func(name, help string, f func(snowlab.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(f(s.Stats())) })
	}
	return []prometheus.Collector{
		stat("snowidd_generator_tick_waits_total", "Waits for a new tick (sequence spent, or MaxLead reached).",
			func(st snowlab.Stats) uint64 { return st.TickWaits }),
		stat("snowidd_generator_cas_retries_total", "Compare-and-swaps lost to another caller.",
			func(st snowlab.Stats) uint64 { return st.CASRetries }),
		stat("snowidd_generator_rewind_waits_total", "Clock rewinds waited out (or waited on until refused).",
			func(st snowlab.Stats) uint64 { return st.RewindWaits }),
		stat("snowidd_generator_rewind_refusals_total", "Generator calls that returned ErrClockBackwards.",
			func(st snowlab.Stats) uint64 { return st.RewindRefusals }),
	}
}

// stateGauges are the replica's state, read at each scrape: the lease,
// readiness and the layout's horizon.
func stateGauges(s *Server) []prometheus.Collector {
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	return []prometheus.Collector{
		gauge("snowidd_lease_held", "1 while the replica holds node ids to mint with (a lease, or static ids), else 0.",
			func() float64 {
				m := s.cur.Load()
				if m.gen == nil {
					return 0
				}
				if m.lease != nil {
					select {
					case <-m.lease.Lost():
						return 0
					default:
					}
				}
				return 1
			}),
		gauge("snowidd_lease_reserved_until_seconds", "End of the lease's durable reservation, Unix seconds (0 without a lease).",
			func() float64 {
				if l := s.cur.Load().lease; l != nil {
					return float64(l.ReservedUntil().UnixNano()) / 1e9
				}
				return 0
			}),
		gauge("snowidd_ready", "1 while /readyz answers 200, else 0.",
			func() float64 {
				if s.NotReady() == "" {
					return 1
				}
				return 0
			}),
		gauge("snowidd_layout_horizon_seconds", "Seconds left until the layout's horizon, the first instant its IDs cannot encode; negative once passed.",
			func() float64 { return s.layout.TimeLeft(s.cfg.Now()).Seconds() }),
	}
}

// clockCollector exports the kernel's account of the clock, read once per
// scrape. Where the system does not say (clocksrc.Kernel.Known false) the
// series are absent rather than a guess: alert on absent() as well.
type clockCollector struct {
	read                       func() clocksrc.Kernel
	synchronized, leap, maxErr *prometheus.Desc
}

func newClockCollector(read func() clocksrc.Kernel) *clockCollector {
	return &clockCollector{
		read: read,
		synchronized: prometheus.NewDesc("snowidd_clock_synchronized",
			"1 while the kernel reports the clock synchronized (adjtimex: STA_UNSYNC clear, not TIME_ERROR), else 0; absent where the system does not say.", nil, nil),
		leap: prometheus.NewDesc("snowidd_clock_leap_pending",
			"1 while the kernel holds a leap second armed for the end of the UTC day (STA_INS, STA_DEL) or under way (TIME_OOP), else 0; absent where the system does not say.", nil, nil),
		maxErr: prometheus.NewDesc("snowidd_clock_max_error_seconds",
			"The kernel's maximum error of the clock (adjtimex maxerror), seconds; absent where the system does not say.", nil, nil),
	}
}

func (c *clockCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.synchronized
	ch <- c.leap
	ch <- c.maxErr
}

func (c *clockCollector) Collect(ch chan<- prometheus.Metric) {
	k := c.read()
	if !k.Known {
		return
	}
	bit := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	ch <- prometheus.MustNewConstMetric(c.synchronized, prometheus.GaugeValue, bit(k.Synchronized))
	ch <- prometheus.MustNewConstMetric(c.leap, prometheus.GaugeValue, bit(k.LeapPending()))
	ch <- prometheus.MustNewConstMetric(c.maxErr, prometheus.GaugeValue, k.MaxError.Seconds())
}

// interceptor counts and times every IDService call that reached its
// method. The series of each method's answered calls are looked up once,
// for every method the service descriptor lists, not per call.
func (m *metrics) interceptor() connect.UnaryInterceptorFunc {
	type series struct {
		ok      prometheus.Counter
		latency prometheus.Observer
	}
	seriesOf := func(method string) series {
		return series{m.requests.WithLabelValues(method, "ok"), m.latency.WithLabelValues(method)}
	}
	known := map[string]series{}
	methods := snowlabv1.File_snowlab_v1_id_proto.Services().ByName("IDService").Methods()
	for i := range methods.Len() {
		method := string(methods.Get(i).Name())
		known["/"+snowlabv1connect.IDServiceName+"/"+method] = seriesOf(method)
	}
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			start := time.Now()
			resp, err := next(ctx, req)
			proc := req.Spec().Procedure
			s, ok := known[proc]
			if !ok { // another service's call, were one given this interceptor
				s = seriesOf(methodName(proc))
			}
			s.latency.Observe(time.Since(start).Seconds())
			if err == nil {
				s.ok.Inc()
			} else {
				m.requests.WithLabelValues(methodName(proc), wireCode(err).String()).Inc()
			}
			return resp, err
		}
	}
}

// methodName is the last element of a procedure, "/snowlab.v1.IDService/NextID".
func methodName(procedure string) string {
	return procedure[strings.LastIndexByte(procedure, '/')+1:]
}
