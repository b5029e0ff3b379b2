package server_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/etcdlease/tlstest"
	"github.com/snowlab/snowlab/snowidd/server"
)

// chainPKI is a root CA, an intermediate under it that issues the
// server's certificates (the certificate file holds the leaf, then the
// intermediate), and the files a reloader serves: a pair, and a client
// CA bundle.
type chainPKI struct {
	root, inter *tlstest.CA
	dir         string
	files       server.TLSFiles
	first       *tlstest.Pair
}

func newChainPKI(t *testing.T, clientCAs ...*tlstest.CA) *chainPKI {
	t.Helper()
	root, err := tlstest.NewCA("root CA")
	require.NoError(t, err)
	inter, err := root.Intermediate("intermediate CA")
	require.NoError(t, err)
	p := &chainPKI{root: root, inter: inter, dir: t.TempDir()}
	p.first = p.issue(t)
	p.files.Cert, p.files.Key, err = p.first.Write(p.dir, "server")
	require.NoError(t, err)
	p.files.ClientCA = filepath.Join(p.dir, "client-ca.crt")
	p.write(t, p.files.ClientCA, bundle(clientCAs...))
	return p
}

func (p *chainPKI) issue(t *testing.T) *tlstest.Pair {
	t.Helper()
	pair, err := p.inter.Server("127.0.0.1")
	require.NoError(t, err)
	return pair
}

func (p *chainPKI) write(t *testing.T, file string, data []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(file, data, 0o600))
}

// bundle is the CAs' certificates in one file, each after a line of
// text as openssl writes it.
func bundle(cas ...*tlstest.CA) []byte {
	var b []byte
	for i, ca := range cas {
		b = fmt.Appendf(b, "subject=CN = client CA %d\n", i+1)
		b = append(b, ca.CertPEM...)
	}
	return b
}

// pool is a certificate pool of the CAs.
func pool(t *testing.T, cas ...*tlstest.CA) *x509.CertPool {
	t.Helper()
	p := x509.NewCertPool()
	for _, ca := range cas {
		require.True(t, p.AppendCertsFromPEM(ca.CertPEM))
	}
	return p
}

// served is the config the reloader gives the next handshake (it reloads
// changed files first).
func served(t *testing.T, rl *server.TLSReloader) *tls.Config {
	t.Helper()
	cfg, err := rl.Config().GetConfigForClient(&tls.ClientHelloInfo{})
	require.NoError(t, err)
	return cfg
}

// cuts are where the tests cut a file: at each line's end, just before
// and after its newline (every PEM boundary is one), and in its middle;
// then the whole file. Every byte would be ten times the work, and only
// more of the middles.
func cuts(data []byte) []int {
	var at []int
	start := 0
	for i, b := range data {
		if b == '\n' {
			at = append(at, (start+i)/2, i, i+1)
			start = i + 1
		}
	}
	return slices.Compact(append(at, len(data)))
}

// wholeAt reports whether the first n bytes of a PEM file whose blocks
// end at ends (each END line's newline included) hold whole blocks only:
// n is a block's end, or one byte short of it (the END line without its
// newline).
func wholeAt(n int, ends ...int) bool {
	return slices.Contains(ends, n) || slices.Contains(ends, n+1)
}

// A file cut short at any line's end or middle, every PEM boundary among
// them, is refused and the previous files served, unless what is left is
// whole:
//
//   - the certificate file (the leaf, then the intermediate): cut anywhere
//     inside a block is not whole PEM; cut right after the leaf is whole
//     PEM but ends at a certificate signed by the intermediate the served
//     chain carried, so it is taken for cut short too. Only the whole file
//     (the last newline aside) loads.
//   - the key file: only the whole key loads. A new pair whose key, or
//     whose certificate file, has text after it is refused, and so is a
//     chain whose second certificate did not sign the first.
//   - the client CA bundle (text, CA 1, text, CA 2): cut inside the text
//     before a block, or inside a block, is refused; cut right after CA 1
//     is the bundle an operator would write to stop trusting CA 2, and
//     loads.
func TestTLSReloadRefusesFilesCutShort(t *testing.T) {
	ca1, err := tlstest.NewCA("client CA 1")
	require.NoError(t, err)
	ca2, err := tlstest.NewCA("client CA 2")
	require.NoError(t, err)
	old, err := tlstest.NewCA("old client CA")
	require.NoError(t, err)
	p := newChainPKI(t, old)
	var last error
	rl, err := server.NewTLSReloader(p.files, func(_ *x509.Certificate, err error) { last = err })
	require.NoError(t, err)
	serial := func() string { return served(t, rl).Certificates[0].Leaf.SerialNumber.String() }

	next := p.issue(t)
	leafEnd := len(next.CertPEM) - len(p.inter.CertPEM)
	p.write(t, p.files.Key, next.KeyPEM)
	for _, n := range cuts(next.CertPEM) {
		p.write(t, p.files.Cert, next.CertPEM[:n])
		want := p.first.Leaf.SerialNumber.String()
		if wholeAt(n, len(next.CertPEM)) {
			want = next.Leaf.SerialNumber.String()
		}
		if got := serial(); got != want {
			t.Fatalf("certificate file cut at byte %d of %d (the leaf ends at %d): serves serial %s, want %s", n, len(next.CertPEM), leafEnd, got, want)
		}
	}
	require.Equal(t, next.Leaf.SerialNumber.String(), serial())
	other := p.issue(t) // a new pair whose files have text after them
	p.write(t, p.files.Key, other.KeyPEM)
	p.write(t, p.files.Cert, append(slices.Clone(other.CertPEM), "subject=CN = 127"...))
	assert.Equal(t, next.Leaf.SerialNumber.String(), serial(), "the certificate file with text after it")
	p.write(t, p.files.Cert, other.CertPEM)
	p.write(t, p.files.Key, append(slices.Clone(other.KeyPEM), "-----BEGIN"...))
	assert.Equal(t, next.Leaf.SerialNumber.String(), serial(), "the key file with a block begun after it")
	p.write(t, p.files.Key, other.KeyPEM)
	leaf := other.CertPEM[:len(other.CertPEM)-len(p.inter.CertPEM)]
	p.write(t, p.files.Cert, append(slices.Clone(leaf), p.root.CertPEM...))
	assert.Equal(t, next.Leaf.SerialNumber.String(), serial(), "a chain whose second certificate did not sign the first")

	third := p.issue(t)
	p.write(t, p.files.Cert, third.CertPEM)
	for _, n := range cuts(third.KeyPEM) {
		p.write(t, p.files.Key, third.KeyPEM[:n])
		want := next.Leaf.SerialNumber.String()
		if wholeAt(n, len(third.KeyPEM)) {
			want = third.Leaf.SerialNumber.String()
		}
		if got := serial(); got != want {
			t.Fatalf("key file cut at byte %d of %d: serves serial %s, want %s", n, len(third.KeyPEM), got, want)
		}
	}

	// Each cut replaces the old CA's bundle, served whole before it.
	both := bundle(ca1, ca2)
	ca1End := len(bundle(ca1))
	for _, n := range cuts(both) {
		p.write(t, p.files.ClientCA, bundle(old))
		require.True(t, served(t, rl).ClientCAs.Equal(pool(t, old)))
		p.write(t, p.files.ClientCA, both[:n])
		want := pool(t, old)
		switch {
		case wholeAt(n, len(both)):
			want = pool(t, ca1, ca2)
		case wholeAt(n, ca1End):
			want = pool(t, ca1)
		}
		if got := served(t, rl).ClientCAs; !got.Equal(want) {
			t.Fatalf("client CA bundle cut at byte %d of %d (CA 1 ends at %d): serves another pool than the old CA's, or the whole part's (%v)", n, len(both), ca1End, last)
		}
	}
}

// The two cuts of issue 37, through real handshakes: a certificate file
// cut after its leaf, and a client CA bundle cut inside its second CA.
// Clients that trust only the root, and clients of the second CA, are
// still served (the previous files), where loading the cut files would
// refuse them.
func TestTLSReloadServesThroughACut(t *testing.T) {
	ca1, err := tlstest.NewCA("client CA 1")
	require.NoError(t, err)
	ca2, err := tlstest.NewCA("client CA 2")
	require.NoError(t, err)
	p := newChainPKI(t, ca1, ca2)
	rl, err := server.NewTLSReloader(p.files, nil)
	require.NoError(t, err)
	client, err := ca2.Client("client of CA 2")
	require.NoError(t, err)
	cfg := &tls.Config{RootCAs: p.root.Pool(), Certificates: []tls.Certificate{client.TLSCertificate()}, MinVersion: tls.VersionTLS12}
	r := newRig(t, rigOpts{tls: rl.Config(), clientTLS: cfg})
	serial := func(why string) string {
		t.Helper()
		st, err := handshake(t, r.url, cfg)
		require.NoError(t, err, why)
		return st.PeerCertificates[0].SerialNumber.String()
	}
	first := p.first.Leaf.SerialNumber.String()
	require.Equal(t, first, serial("the first files"))

	next := p.issue(t)
	p.write(t, p.files.Key, next.KeyPEM)
	p.write(t, p.files.Cert, next.CertPEM[:len(next.CertPEM)-len(p.inter.CertPEM)])
	assert.Equal(t, first, serial("the certificate file cut after the leaf"))
	p.write(t, p.files.Cert, next.CertPEM)
	assert.Equal(t, next.Leaf.SerialNumber.String(), serial("the whole certificate file"))

	ca3, err := tlstest.NewCA("client CA 3")
	require.NoError(t, err)
	whole := bundle(ca1, ca2, ca3)
	p.write(t, p.files.ClientCA, whole[:len(bundle(ca1))+len(ca2.CertPEM)/2])
	serial("the client CA bundle cut inside CA 2")
	p.write(t, p.files.ClientCA, whole)
	serial("the whole client CA bundle")
}
