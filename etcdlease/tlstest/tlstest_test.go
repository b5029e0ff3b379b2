package tlstest

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issued certificates chain to their CA for their use (a server's for
// its hosts, a client's for client auth) and not to another CA; the
// written files load back as the pair.
func TestIssuedCertificatesVerify(t *testing.T) {
	ca, err := NewCA("test CA")
	require.NoError(t, err)
	other, err := NewCA("other CA")
	require.NoError(t, err)
	srv, err := ca.Server("127.0.0.1", "localhost")
	require.NoError(t, err)
	cli, err := ca.Client("alice")
	require.NoError(t, err)
	peer, err := ca.Peer("127.0.0.1")
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		p     *Pair
		host  string
		usage x509.ExtKeyUsage
	}{
		{"server by IP", srv, "127.0.0.1", x509.ExtKeyUsageServerAuth},
		{"server by name", srv, "localhost", x509.ExtKeyUsageServerAuth},
		{"client", cli, "", x509.ExtKeyUsageClientAuth},
		{"peer as server", peer, "127.0.0.1", x509.ExtKeyUsageServerAuth},
		{"peer as client", peer, "", x509.ExtKeyUsageClientAuth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := x509.VerifyOptions{Roots: ca.Pool(), DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}}
			_, err := tc.p.Leaf.Verify(opts)
			require.NoError(t, err)
			opts.Roots = other.Pool()
			_, err = tc.p.Leaf.Verify(opts)
			assert.Error(t, err, "verified by another CA")
		})
	}
	_, err = cli.Leaf.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	assert.Error(t, err, "a client certificate is no server's")
	assert.Equal(t, "alice", cli.Leaf.Subject.CommonName)
	assert.NotEqual(t, srv.Leaf.SerialNumber, cli.Leaf.SerialNumber)

	dir := t.TempDir()
	certFile, keyFile, err := srv.Write(dir, "srv")
	require.NoError(t, err)
	loaded, err := tls.LoadX509KeyPair(certFile, keyFile)
	require.NoError(t, err)
	assert.Equal(t, srv.Leaf.Raw, loaded.Leaf.Raw)
	info, err := os.Stat(keyFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "a key readable by its owner only")
	_, err = ca.Server()
	assert.Error(t, err, "a server certificate for no host")
}

// ServerValid issues for the validity asked: an expired certificate does
// not verify now, and verifies at an instant within its validity.
func TestServerValid(t *testing.T) {
	ca, err := NewCA("test CA")
	require.NoError(t, err)
	from := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	until := time.Now().Add(-10 * time.Minute).Truncate(time.Second)
	p, err := ca.ServerValid(from, until, "127.0.0.1")
	require.NoError(t, err)
	assert.True(t, p.Leaf.NotBefore.Equal(from), "%v", p.Leaf.NotBefore)
	assert.True(t, p.Leaf.NotAfter.Equal(until), "%v", p.Leaf.NotAfter)
	assert.Equal(t, "127.0.0.1", p.Leaf.IPAddresses[0].String())
	_, err = p.Leaf.Verify(x509.VerifyOptions{Roots: ca.Pool()})
	assert.ErrorContains(t, err, "expired")
	_, err = p.Leaf.Verify(x509.VerifyOptions{Roots: ca.Pool(), CurrentTime: time.Now().Add(-30 * time.Minute)})
	assert.NoError(t, err, "within its validity and the CA's")
	_, err = ca.ServerValid(from, until)
	assert.Error(t, err, "a server certificate for no host")
}

// An Intermediate's pairs carry it after the leaf, and verify to the
// root alone: with the chain the server sends as intermediates, not
// without it.
func TestIntermediate(t *testing.T) {
	root, err := NewCA("root CA")
	require.NoError(t, err)
	inter, err := root.Intermediate("intermediate CA")
	require.NoError(t, err)
	srv, err := inter.Server("127.0.0.1")
	require.NoError(t, err)
	c := srv.TLSCertificate()
	require.Len(t, c.Certificate, 2, "the leaf, then the intermediate")
	sent, err := x509.ParseCertificate(c.Certificate[1])
	require.NoError(t, err)
	assert.Equal(t, "intermediate CA", sent.Subject.CommonName)
	pool := x509.NewCertPool()
	pool.AddCert(sent)
	_, err = srv.Leaf.Verify(x509.VerifyOptions{Roots: root.Pool(), Intermediates: pool})
	require.NoError(t, err)
	_, err = srv.Leaf.Verify(x509.VerifyOptions{Roots: root.Pool()})
	assert.Error(t, err, "verified without the intermediate")
	assert.Equal(t, inter.CertPEM, srv.CertPEM[len(srv.CertPEM)-len(inter.CertPEM):])
}
