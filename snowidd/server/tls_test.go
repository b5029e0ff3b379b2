package server_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/etcdlease/tlstest"
	"github.com/snowlab/snowlab/snowidd/client"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
	"github.com/snowlab/snowlab/snowidd/server"
)

// pki is a CA of the test's with the files a replica serves: a server
// certificate for 127.0.0.1 and the CA as the client CA.
type pki struct {
	ca    *tlstest.CA
	dir   string
	files server.TLSFiles
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	ca, err := tlstest.NewCA("snowidd test CA")
	require.NoError(t, err)
	p := &pki{ca: ca, dir: t.TempDir()}
	p.files.ClientCA, err = ca.WriteCert(p.dir, "client-ca.crt")
	require.NoError(t, err)
	p.issueServer(t)
	return p
}

// issueServer writes a new server certificate and key over the served
// files and returns the certificate.
func (p *pki) issueServer(t testing.TB) *tlstest.Pair {
	t.Helper()
	pair, err := p.ca.Server("127.0.0.1", "localhost")
	require.NoError(t, err)
	p.files.Cert, p.files.Key, err = pair.Write(p.dir, "server")
	require.NoError(t, err)
	return pair
}

// client is a client config trusting the CA, presenting a certificate of
// its own when withCert.
func (p *pki) client(t testing.TB, withCert bool) *tls.Config {
	t.Helper()
	if !withCert {
		return tlstest.ClientConfig(p.ca, nil)
	}
	pair, err := p.ca.Client("snowidd-test-client")
	require.NoError(t, err)
	return tlstest.ClientConfig(p.ca, pair)
}

// reports records what a TLSReloader reports.
type reports struct {
	mu     sync.Mutex
	loaded []*big.Int // serials
	errs   []error
}

func (r *reports) report(leaf *x509.Certificate, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.errs = append(r.errs, err)
		return
	}
	r.loaded = append(r.loaded, leaf.SerialNumber)
}

func (r *reports) snapshot() ([]*big.Int, []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*big.Int(nil), r.loaded...), append([]error(nil), r.errs...)
}

// tlsRig serves the rig's replica over TLS with a reloader on p's files.
func tlsRig(t *testing.T, p *pki, mutual bool) (*rig, *server.TLSReloader, *reports) {
	t.Helper()
	files := p.files
	if !mutual {
		files.ClientCA = ""
	}
	rep := &reports{}
	rl, err := server.NewTLSReloader(files, rep.report)
	require.NoError(t, err)
	r := newRig(t, rigOpts{tls: rl.Config(), clientTLS: p.client(t, mutual)})
	r.srv.Registry().MustRegister(rl.Collectors()...)
	return r, rl, rep
}

// handshake dials the replica, completes a TLS handshake with cfg and
// returns the connection's state: a new connection, so a new handshake
// each time.
func handshake(t *testing.T, url string, cfg *tls.Config) (tls.ConnectionState, error) {
	t.Helper()
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"}
	c, err := tls.Dial("tcp", strings.TrimPrefix(url, "https://"), cfg)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer c.Close()
	// In TLS 1.3 the server checks the client's certificate after the
	// client's handshake is done: its refusal arrives with the first
	// read. A served connection sends its HTTP/2 settings first.
	require.NoError(t, c.SetReadDeadline(testend.Deadline(t)))
	if _, err := c.Read(make([]byte, 1)); err != nil {
		return tls.ConnectionState{}, err
	}
	return c.ConnectionState(), nil
}

// Over TLS the replica speaks HTTP/2, negotiated by ALPN (gRPC needs it),
// and HTTP/1.1 to a client that offers only that; the Go client reaches
// it at an https:// target.
func TestTLSServesHTTP2AndHTTP1(t *testing.T) {
	p := newPKI(t)
	r, _, _ := tlsRig(t, p, false)
	require.True(t, strings.HasPrefix(r.url, "https://"), r.url)

	st, err := handshake(t, r.url, p.client(t, false))
	require.NoError(t, err)
	assert.Equal(t, "h2", st.NegotiatedProtocol)

	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err, "gRPC over TLS")

	for _, tc := range []struct {
		name  string
		h2    bool
		proto int
	}{{"HTTP/2", true, 2}, {"HTTP/1.1", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			var protos http.Protocols
			protos.SetHTTP1(!tc.h2)
			protos.SetHTTP2(tc.h2)
			hc := &http.Client{Transport: &http.Transport{TLSClientConfig: p.client(t, false), Protocols: &protos}}
			resp, err := hc.Get(r.url + "/readyz")
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, tc.proto, resp.ProtoMajor)
		})
	}

	c, err := client.New(client.Config{Targets: []string{r.url}, TLS: p.client(t, false)})
	require.NoError(t, err)
	ids, err := c.NextIDs(ctx, 10)
	require.NoError(t, err, "the Go client at an https:// target")
	assert.Len(t, ids, 10)

	// A plaintext client is not served HTTP on a TLS port.
	_, err = client.H2CClient().Get("http://" + strings.TrimPrefix(r.url, "https://") + "/readyz")
	assert.Error(t, err)
}

// With a client CA, a client without a certificate, or with one another
// CA signed, is refused in the handshake; one with a certificate the CA
// signed is served.
func TestMutualTLSRefusesAClientWithoutACertificate(t *testing.T) {
	p := newPKI(t)
	r, _, _ := tlsRig(t, p, true)

	_, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err, "a client with a certificate the CA signed")

	_, err = handshake(t, r.url, p.client(t, false))
	require.Error(t, err, "a client without a certificate")
	assert.Contains(t, err.Error(), "certificate required")

	other := newPKI(t)
	foreign := other.client(t, true)
	foreign.RootCAs = p.ca.Pool() // it trusts the server, the server does not trust it
	_, err = handshake(t, r.url, foreign)
	require.Error(t, err, "a client whose certificate another CA signed")
	assert.Contains(t, err.Error(), "unknown certificate authority")

	c, err := client.New(client.Config{Targets: []string{r.url}, TLS: p.client(t, false), Rounds: 1})
	require.NoError(t, err)
	_, err = c.NextID(ctx)
	require.Error(t, err, "the Go client without a certificate")
}

// The replica serves what its files hold at each handshake: a new
// certificate written over the old is served from the next connection on,
// without a restart; a certificate whose key is not written yet is
// reported once and the previous pair served until the key comes; a new
// client CA is trusted, and the old one no longer, from the next
// handshake.
func TestTLSReloadsChangedFiles(t *testing.T) {
	p := newPKI(t)
	first := p.files
	r, rl, rep := tlsRig(t, p, true)
	cfg := p.client(t, true)
	serial := func() *big.Int {
		t.Helper()
		st, err := handshake(t, r.url, cfg)
		require.NoError(t, err)
		return st.PeerCertificates[0].SerialNumber
	}
	original := rl.Certificate().SerialNumber
	assert.Equal(t, original, serial())
	assert.Equal(t, original, serial(), "unchanged files: the same certificate")

	next := p.issueServer(t) // written over the same two files
	require.Equal(t, first, p.files)
	assert.Equal(t, next.Leaf.SerialNumber, serial(), "the new certificate, from the next handshake")

	// Half a rotation: the certificate is new, the key still the old one.
	third, err := p.ca.Server("127.0.0.1")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p.files.Cert, third.CertPEM, 0o600))
	assert.Equal(t, next.Leaf.SerialNumber, serial(), "a pair that does not match: the previous one still served")
	assert.Equal(t, next.Leaf.SerialNumber, serial())
	require.NoError(t, os.WriteFile(p.files.Key, third.KeyPEM, 0o600))
	assert.Equal(t, third.Leaf.SerialNumber, serial(), "the key came: the new pair")

	loaded, errs := rep.snapshot()
	assert.Equal(t, []*big.Int{next.Leaf.SerialNumber, third.Leaf.SerialNumber}, loaded)
	require.Len(t, errs, 1, "the mismatch is reported once")
	assert.ErrorIs(t, errs[0], server.ErrTLSFiles)
	assert.Contains(t, errs[0].Error(), "private key does not match public key")
	assert.Equal(t, 2.0, r.series("snowidd_tls_reloads_total", "result", "loaded"))
	assert.Equal(t, 1.0, r.series("snowidd_tls_reloads_total", "result", "refused"))
	assert.Equal(t, float64(third.Leaf.NotAfter.Unix()), r.metric("snowidd_tls_certificate_not_after_seconds"))

	// A new client CA: clients of the old one are refused from now on.
	newCA, err := tlstest.NewCA("the next client CA")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p.files.ClientCA, newCA.CertPEM, 0o600))
	_, err = handshake(t, r.url, cfg)
	require.Error(t, err, "a certificate of the old client CA")
	pair, err := newCA.Client("next-client")
	require.NoError(t, err)
	withNew := cfg.Clone()
	withNew.Certificates = []tls.Certificate{pair.TLSCertificate()}
	_, err = handshake(t, r.url, withNew)
	require.NoError(t, err, "a certificate of the new client CA")

	// A file removed: the previous files are still served.
	require.NoError(t, os.Remove(p.files.Key))
	_, err = handshake(t, r.url, withNew)
	require.NoError(t, err)
	_, errs = rep.snapshot()
	require.Len(t, errs, 2)
	assert.Contains(t, errs[1].Error(), "no such file")
}

// A pair that parses and matches but is not valid by the server's
// clock is refused like one that does not load: the previous pair is
// still served (a real handshake shows its serial), the refusal is
// reported once and counted; a pair not valid yet loads once the
// server's clock reaches it, and a valid pair written next is served.
func TestTLSReloadRefusesACertificateOutsideItsValidity(t *testing.T) {
	p := newPKI(t)
	var ahead atomic.Int64 // the server's clock is the machine's plus ahead
	p.files.Now = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	r, rl, rep := tlsRig(t, p, false)
	serial := func(cfg *tls.Config) *big.Int {
		t.Helper()
		st, err := handshake(t, r.url, cfg)
		require.NoError(t, err)
		return st.PeerCertificates[0].SerialNumber
	}
	cfg := p.client(t, false)
	original := rl.Certificate()
	require.Equal(t, original.SerialNumber, serial(cfg))

	now := time.Now()
	expired, err := p.ca.ServerValid(now.Add(-72*time.Hour), now.Add(-time.Hour), "127.0.0.1")
	require.NoError(t, err)
	_, _, err = expired.Write(p.dir, "server")
	require.NoError(t, err)
	assert.Equal(t, original.SerialNumber, serial(cfg), "an expired pair written over: the previous one still served")
	assert.Equal(t, original.SerialNumber, serial(cfg))
	loaded, errs := rep.snapshot()
	assert.Empty(t, loaded)
	require.Len(t, errs, 1, "reported once")
	assert.ErrorIs(t, errs[0], server.ErrTLSFiles)
	assert.Contains(t, errs[0].Error(), fmt.Sprintf("certificate %s: the certificate (\"127.0.0.1\", serial %x) expired at %s",
		p.files.Cert, expired.Leaf.SerialNumber, expired.Leaf.NotAfter.UTC().Format(time.RFC3339)))
	assert.Equal(t, 1.0, r.series("snowidd_tls_reloads_total", "result", "refused"))
	assert.Equal(t, 0.0, r.series("snowidd_tls_reloads_total", "result", "loaded"))
	assert.Equal(t, float64(original.NotAfter.Unix()), r.metric("snowidd_tls_certificate_not_after_seconds"))

	early, err := p.ca.ServerValid(now.Add(time.Hour), now.Add(72*time.Hour), "127.0.0.1")
	require.NoError(t, err)
	_, _, err = early.Write(p.dir, "server")
	require.NoError(t, err)
	assert.Equal(t, original.SerialNumber, serial(cfg), "a pair not valid yet: the previous one still served")
	_, errs = rep.snapshot()
	require.Len(t, errs, 2)
	assert.Contains(t, errs[1].Error(), "is not valid before "+early.Leaf.NotBefore.UTC().Format(time.RFC3339))
	// The server's clock two hours on (and the client's with it): the
	// same files now load.
	ahead.Store(int64(2 * time.Hour))
	later := cfg.Clone()
	later.Time = func() time.Time { return time.Now().Add(2 * time.Hour) }
	assert.Equal(t, early.Leaf.SerialNumber, serial(later), "valid by the server's clock: served")
	ahead.Store(0)

	next := p.issueServer(t)
	assert.Equal(t, next.Leaf.SerialNumber, serial(cfg), "a valid pair: served from the next handshake")
	loaded, errs = rep.snapshot()
	assert.Equal(t, []*big.Int{early.Leaf.SerialNumber, next.Leaf.SerialNumber}, loaded)
	assert.Len(t, errs, 2)
	assert.Equal(t, 2.0, r.series("snowidd_tls_reloads_total", "result", "refused"))
	assert.Equal(t, 2.0, r.series("snowidd_tls_reloads_total", "result", "loaded"))
	assert.Equal(t, float64(next.Leaf.NotAfter.Unix()), r.metric("snowidd_tls_certificate_not_after_seconds"))
}

// Files that do not load are refused at the start with ErrTLSFiles,
// naming the file at fault.
func TestNewTLSReloaderRefusesBadFiles(t *testing.T) {
	p := newPKI(t)
	other, err := p.ca.Server("127.0.0.1")
	require.NoError(t, err)
	_, otherKey, err := other.Write(t.TempDir(), "other")
	require.NoError(t, err)
	now := time.Now()
	expired, err := p.ca.ServerValid(now.Add(-72*time.Hour), now.Add(-time.Hour), "127.0.0.1")
	require.NoError(t, err)
	expiredCert, expiredKey, err := expired.Write(t.TempDir(), "expired")
	require.NoError(t, err)
	early, err := p.ca.ServerValid(now.Add(time.Hour), now.Add(72*time.Hour), "127.0.0.1")
	require.NoError(t, err)
	earlyCert, earlyKey, err := early.Write(t.TempDir(), "early")
	require.NoError(t, err)
	notPEM := filepath.Join(p.dir, "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("hello"), 0o600))
	missing := filepath.Join(p.dir, "missing")
	for _, tc := range []struct {
		name  string
		files server.TLSFiles
		want  string
	}{
		{"no key", server.TLSFiles{Cert: p.files.Cert}, "a certificate and its key are both needed"},
		{"missing certificate", server.TLSFiles{Cert: missing, Key: p.files.Key}, "certificate: open " + missing},
		{"missing key", server.TLSFiles{Cert: p.files.Cert, Key: missing}, "key: open " + missing},
		{"missing client CA", server.TLSFiles{Cert: p.files.Cert, Key: p.files.Key, ClientCA: missing}, "client CA: open " + missing},
		{"key of another certificate", server.TLSFiles{Cert: p.files.Cert, Key: otherKey}, "private key does not match"},
		{"certificate not PEM", server.TLSFiles{Cert: notPEM, Key: p.files.Key}, "certificate " + notPEM},
		{"client CA not PEM", server.TLSFiles{Cert: p.files.Cert, Key: p.files.Key, ClientCA: notPEM}, "client CA " + notPEM + " holds no PEM certificate"},
		{"expired", server.TLSFiles{Cert: expiredCert, Key: expiredKey}, "certificate " + expiredCert + ": the certificate (\"127.0.0.1\", serial " + fmt.Sprintf("%x", expired.Leaf.SerialNumber) + ") expired at "},
		{"not valid yet", server.TLSFiles{Cert: earlyCert, Key: earlyKey}, "certificate " + earlyCert + ": the certificate (\"127.0.0.1\", serial " + fmt.Sprintf("%x", early.Leaf.SerialNumber) + ") is not valid before "},
		{"valid now, expired by the server's clock", server.TLSFiles{Cert: p.files.Cert, Key: p.files.Key, Now: func() time.Time { return now.Add(49 * time.Hour) }}, ") expired at "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := server.NewTLSReloader(tc.files, nil)
			require.ErrorIs(t, err, server.ErrTLSFiles)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
