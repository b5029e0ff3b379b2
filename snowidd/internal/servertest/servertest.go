// Package servertest starts in-process snowidd replicas for tests: a
// server minting on a static node id, served over HTTP/1.1 and unencrypted
// HTTP/2 on the server's coalescing listener, or (ServeWith) within limits
// and over TLS, as the command serves it, closed when the test ends.
package servertest

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/snowidd/server"
)

// Serve serves h for the test's duration and returns its base URL.
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	ts.Config.Protocols = server.Protocols()
	ts.Listener = server.NewListener(ts.Listener)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

// ServeWith serves srv's handler h as the snowidd command serves it, with
// the http.Server of server.NewHTTPServer within lim on srv.Listener,
// over TLS configured by tlsConfig when it is not nil (lim.TLS is then
// set), for the test's duration, and returns its base URL (http:// or
// https://).
func ServeWith(t testing.TB, srv *server.Server, h http.Handler, lim server.Limits, tlsConfig *tls.Config) string {
	t.Helper()
	lim.TLS = tlsConfig != nil
	hs, err := server.NewHTTPServer("", h, lim)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(srv.Listener(ln, lim, tlsConfig)) }()
	t.Cleanup(func() { _ = hs.Close() })
	if tlsConfig != nil {
		return "https://" + ln.Addr().String()
	}
	return "http://" + ln.Addr().String()
}

// Static returns a server minting with an atomicgen built from cfg (its
// Node is the node id) and not yet served: a test wraps or serves its
// Handler.
func Static(t testing.TB, cfg snowlab.Config) *server.Server {
	t.Helper()
	srv, err := server.New(server.Config{Layout: cfg.Layout})
	if err != nil {
		t.Fatal(err)
	}
	g, err := atomicgen.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.Use(g, cfg, nil, 1)
	return srv
}
