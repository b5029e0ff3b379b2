package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/snowlab/snowlab"
)

// Limits bound what one client can hold of a replica, so that a client
// that is slow, stuck or hostile (many idle connections, headers or a
// body trickled a byte at a time, a flood of HTTP/2 streams, huge
// headers) costs the replica a bounded share and its other clients keep
// being served. Every valid call is a few hundred bytes, sent at once.
// A zero field is its Default value.
type Limits struct {
	// ReadHeaderTimeout bounds the wait for a request's headers, from
	// the connection's first byte (its TLS handshake included) or the
	// end of the previous request.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the reading of a whole request, its body
	// included: on HTTP/1.1 from the start of the request, on HTTP/2
	// for each stream.
	ReadTimeout time.Duration
	// IdleTimeout is how long a connection with no request in flight is
	// kept open.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's headers: HTTP/1.1 answers a
	// larger one 431, HTTP/2 advertises it as SETTINGS_MAX_HEADER_LIST_SIZE
	// and refuses a larger one.
	MaxHeaderBytes int
	// MaxConcurrentStreams is how many requests one HTTP/2 connection
	// may have in flight; the client opens more connections for more.
	MaxConcurrentStreams int
	// MaxConns is how many connections may be open at once (see
	// Server.LimitListener): a connection past it is closed at once.
	MaxConns int
	// TLS is whether the server is served over TLS (NewTLSListener):
	// HTTP/2 is then negotiated by ALPN, and unencrypted HTTP/2 is off.
	TLS bool
}

// The default Limits.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 10 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	// DefaultMaxHeaderBytes is 64 KiB: a gRPC client's headers are a few
	// hundred bytes, a bearer token added by a proxy a few kilobytes;
	// Go's own default is 1 MiB.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxConcurrentStreams is Go's HTTP/2 default.
	DefaultMaxConcurrentStreams = 250
	// DefaultMaxConns is 10,000 connections: a fleet's clients keep one
	// or a few HTTP/2 connections to each replica, and an idle
	// connection costs some tens of kilobytes (buffers, two goroutines).
	DefaultMaxConns = 10_000
)

// orDefault is l with each zero field its default; an error wraps
// snowlab.ErrInvalidConfig for a negative one.
func (l Limits) orDefault() (Limits, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"read header timeout", int64(l.ReadHeaderTimeout)}, {"read timeout", int64(l.ReadTimeout)},
		{"idle timeout", int64(l.IdleTimeout)}, {"max header bytes", int64(l.MaxHeaderBytes)},
		{"max concurrent streams", int64(l.MaxConcurrentStreams)}, {"max connections", int64(l.MaxConns)},
	} {
		if f.v < 0 {
			return l, fmt.Errorf("%w: snowidd: %s %d is negative", snowlab.ErrInvalidConfig, f.name, f.v)
		}
	}
	def := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&l.ReadTimeout, DefaultReadTimeout)
	def(&l.IdleTimeout, DefaultIdleTimeout)
	if l.MaxHeaderBytes == 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.MaxConcurrentStreams == 0 {
		l.MaxConcurrentStreams = DefaultMaxConcurrentStreams
	}
	if l.MaxConns == 0 {
		l.MaxConns = DefaultMaxConns
	}
	return l, nil
}

// Listener is ln as a replica serves on it: at most lim.MaxConns
// connections open (LimitListener), each written through NewListener's
// coalescing, and TLS over that when tlsConfig is not nil
// (NewTLSListener). Serve on it the http.Server of NewHTTPServer with the
// same lim, lim.TLS set when tlsConfig is.
func (s *Server) Listener(ln net.Listener, lim Limits, tlsConfig *tls.Config) net.Listener {
	ln = s.LimitListener(ln, lim.MaxConns)
	if tlsConfig != nil {
		return NewTLSListener(ln, tlsConfig)
	}
	return NewListener(ln)
}

// connMetrics count the connections a LimitListener holds and refuses.
type connMetrics struct {
	open    prometheus.Gauge
	refused prometheus.Counter
}

func newConnMetrics(reg prometheus.Registerer) connMetrics {
	m := connMetrics{
		open: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "snowidd_connections_open",
			Help: "Client connections open now.",
		}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "snowidd_connections_refused_total",
			Help: "Connections closed as soon as accepted because the replica already had its maximum open (-max-conns).",
		}),
	}
	reg.MustRegister(m.open, m.refused)
	return m
}

// LimitListener returns ln holding at most max connections open at once
// (0 is DefaultMaxConns), counted in the server's metrics: one accepted
// past it is closed at once, so that its client learns at once that it
// should try another replica, rather than waiting in the kernel's accept
// queue until another connection closes. Wrap the listener of net.Listen with it,
// then with NewListener or NewTLSListener.
func (s *Server) LimitListener(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		max = DefaultMaxConns
	}
	return &limitListener{Listener: ln, max: int64(max), m: s.conns}
}

type limitListener struct {
	net.Listener
	max  int64
	open atomic.Int64
	m    connMetrics
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			l.m.refused.Inc()
			_ = c.Close()
			continue
		}
		l.m.open.Inc()
		return &limitedConn{Conn: c, l: l}, nil
	}
}

// limitedConn frees its place under the limit when closed, once however
// many times it is closed.
type limitedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

// CloseWrite is the connection's, which an HTTP/1.1 server calls before
// closing a connection it answered with an error.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.open.Add(-1)
		c.l.m.open.Dec()
	})
	return err
}
