package remote_test

import (
	"crypto/tls"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/etcdlease/tlstest"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/server"
)

// The remote subject against the real server: the lab's burst workload runs through every protocol, one ID per
// call and in batches, and its checks (uniqueness, each caller's order,
// the per-node ceiling) pass.
func TestSubjectAgainstTheServer(t *testing.T) {
	url := serve(t, snowlab.Config{Node: 3})
	for _, p := range client.Protocols() {
		for _, batch := range []int{0, 10} {
			for _, fill := range []bool{false, true} {
				s, err := remote.Subject(url, p, batch, snowlab.Layout{}, nil)
				require.NoError(t, err)
				res, err := workload.Burst(s, workload.BurstConfig{IDs: 2000, Goroutines: 4, Repeats: 1}, fill, nil)
				require.NoError(t, err, s.Name)
				assert.True(t, res.Check.OK(), "%s (fill %v): %s", s.Name, fill, res.Check)
				assert.Equal(t, 2000, res.Check.IDs, s.Name)
			}
		}
	}
}

// serve serves snowidd's server, minting with an atomicgen built from cfg,
// in process for the test's duration, as the command serves it, and
// returns its base URL. In process rather than a bin/snowidd replica: the
// subjects never close their connections, which a replica's graceful
// drain would wait on, and the test then needs no binary.
func serve(t *testing.T, cfg snowlab.Config) string {
	t.Helper()
	return serveHandler(t, newServer(t, cfg, server.Config{}).Handler())
}

// newServer is snowidd's server configured by scfg, minting with an
// atomicgen built from cfg.
func newServer(t *testing.T, cfg snowlab.Config, scfg server.Config) *server.Server {
	t.Helper()
	scfg.Layout = cfg.Layout
	srv, err := server.New(scfg)
	require.NoError(t, err)
	g, err := atomicgen.New(cfg)
	require.NoError(t, err)
	srv.Use(g, cfg, nil, 1)
	return srv
}

// serveHandler serves h on loopback as snowidd serves its handler: HTTP/1.1
// and unencrypted HTTP/2 on its coalescing listener.
func serveHandler(t *testing.T, h http.Handler) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	ts.Config.Protocols = server.Protocols()
	ts.Listener = server.NewListener(ts.Listener)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

// The remote subject over mutual TLS against the real server: every
// protocol passes the burst workload's checks with a client certificate,
// and without one the server refuses the subject's calls.
func TestSubjectOverMutualTLS(t *testing.T) {
	ca, err := tlstest.NewCA("lab remote CA")
	require.NoError(t, err)
	dir := t.TempDir()
	files := server.TLSFiles{}
	files.ClientCA, err = ca.WriteCert(dir, "ca.crt")
	require.NoError(t, err)
	pair, err := ca.Server("127.0.0.1")
	require.NoError(t, err)
	files.Cert, files.Key, err = pair.Write(dir, "server")
	require.NoError(t, err)
	rl, err := server.NewTLSReloader(files, nil)
	require.NoError(t, err)
	refused := make(chan string, 16)
	url := serveTLS(t, snowlab.Config{Node: 4}, rl.Config(), refused)
	clientPair, err := ca.Client("lab")
	require.NoError(t, err)

	for _, p := range client.Protocols() {
		s, err := remote.Subject(url, p, 10, snowlab.Layout{}, tlstest.ClientConfig(ca, clientPair))
		require.NoError(t, err)
		res, err := workload.Burst(s, workload.BurstConfig{IDs: 1000, Goroutines: 4, Repeats: 1}, false, nil)
		require.NoError(t, err, s.Name)
		assert.True(t, res.Check.OK(), "%s: %s", s.Name, res.Check)
		assert.Equal(t, 1000, res.Check.IDs, s.Name)
	}
	require.Empty(t, refused, "a handshake with a client certificate was refused")
	s, err := remote.Subject(url, client.GRPC, 0, snowlab.Layout{}, tlstest.ClientConfig(ca, nil))
	require.NoError(t, err)
	m, err := s.New()
	require.NoError(t, err)
	_, err = m.Next()
	require.ErrorIs(t, err, remote.ErrCall, "no client certificate")
	// Under TLS 1.3 the client finishes its handshake before the server
	// judges the certificate, so what the client sees is a race: the
	// server's alert, HTTP/2 failing to set the connection up, or the
	// connection closed under a read. The server's own record of the
	// handshake says why: it wrote it before closing the connection.
	select {
	case line := <-refused:
		assert.Contains(t, line, "client didn't provide a certificate")
	case <-time.After(time.Minute):
		t.Fatal("the call failed but the server refused no handshake")
	}
}

// serveTLS is serve over TLS, on the listener snowidd serves TLS on
// (Server.Listener), and returns its https URL. Each TLS handshake the
// server refuses is sent to refused as its log line.
func serveTLS(t *testing.T, cfg snowlab.Config, tlsConfig *tls.Config, refused chan<- string) string {
	t.Helper()
	srv := newServer(t, cfg, server.Config{})
	lim := server.Limits{TLS: true}
	hs, err := server.NewHTTPServer("", srv.Handler(), lim)
	require.NoError(t, err)
	hs.ErrorLog = log.New(lineFunc(func(line string) {
		if strings.Contains(line, "TLS handshake error") {
			select {
			case refused <- line:
			default:
			}
		}
	}), "", 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = hs.Serve(srv.Listener(ln, lim, tlsConfig)) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "https://" + ln.Addr().String()
}

// lineFunc is an io.Writer for a log.Logger, which writes each line in
// one call.
type lineFunc func(string)

func (f lineFunc) Write(p []byte) (int, error) {
	f(string(p))
	return len(p), nil
}
