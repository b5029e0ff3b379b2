// Package tlstest makes throwaway certificates for tests of TLS and
// mutual TLS: a certificate authority, server certificates for loopback
// names and addresses, client certificates with a common name, all with
// crypto/x509 and ECDSA P-256 keys, written as PEM files where a program
// under test reads them (etcd's --cert-file, snowidd's -tls-cert).
//
// It is a package of the etcdlease module, not of the snowlab library,
// because that is the lowest module the tests which need it can import:
// etcdlease's own (an etcd that demands client certificates), snowidd's
// (a replica serving mutual TLS, a fleet with TLS on every hop) and the
// lab's fault rig (etcd members and replicas on mutual TLS). No module
// imports another's internal packages, so it is public; it is no part of
// the lease store.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// validity is how long a certificate is valid: a test's lifetime with a
// wide margin, starting an hour back so that a clock a little behind
// another process's does not make a fresh certificate "not yet valid".
const (
	validFor  = 48 * time.Hour
	backdated = time.Hour
)

// CA is a certificate authority that issues server and client
// certificates.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// chain is what a certificate the CA issues is sent with after it:
	// the CA's certificate and its own chain for an intermediate, nothing
	// for a root (a peer trusts the root itself).
	chain []byte
	// CertPEM is the CA certificate, PEM-encoded: what a peer trusts
	// (etcd's --trusted-ca-file, snowidd's -tls-client-ca, a client's
	// -etcd-cacert).
	CertPEM []byte
}

// NewCA returns a new self-signed certificate authority named name.
func NewCA(name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tlstest: CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"snowlab tests"}},
		NotBefore:             now.Add(-backdated),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            1, // room for one Intermediate
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("tlstest: CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("tlstest: CA certificate: %w", err)
	}
	return &CA{cert: cert, key: key, CertPEM: pemBlock("CERTIFICATE", der)}, nil
}

// Intermediate returns a CA named name whose certificate ca issues: the
// pairs it issues carry its certificate after their own in CertPEM (the
// chain a server sends, and Pair.Write writes), and verify to ca, the
// root, which a peer trusts alone.
func (ca *CA) Intermediate(name string) (*CA, error) {
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"snowlab tests"}},
		NotBefore:             now.Add(-backdated),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	p, err := ca.issue(tmpl)
	if err != nil {
		return nil, err
	}
	key, err := x509.ParsePKCS8PrivateKey(pemBytes(p.KeyPEM))
	if err != nil {
		return nil, fmt.Errorf("tlstest: intermediate key: %w", err)
	}
	own := pemBlock("CERTIFICATE", p.Leaf.Raw)
	return &CA{cert: p.Leaf, key: key.(*ecdsa.PrivateKey), CertPEM: own, chain: slices.Concat(own, ca.chain)}, nil
}

// pemBytes is the content of the first PEM block of b, which pemBlock
// made.
func pemBytes(b []byte) []byte {
	block, _ := pem.Decode(b)
	return block.Bytes
}

// Pool is a certificate pool holding only the CA: a tls.Config's RootCAs
// (a client checking a server) or ClientCAs (a server checking clients).
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// WriteCert writes the CA certificate to dir/name and returns its path.
func (ca *CA) WriteCert(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, ca.CertPEM, 0o600); err != nil {
		return "", fmt.Errorf("tlstest: %w", err)
	}
	return path, nil
}

// Pair is an issued certificate and its private key.
type Pair struct {
	// CertPEM and KeyPEM are the certificate (its chain after it, when
	// an Intermediate issued it) and its PKCS #8 key, PEM-encoded, as a
	// server or client reads them from files.
	CertPEM, KeyPEM []byte
	// Leaf is the parsed certificate: its serial number tells one
	// issued pair from another.
	Leaf *x509.Certificate
}

// Server issues a certificate a server presents for hosts: each an IP
// address (127.0.0.1, ::1) or a DNS name (localhost). The common name is
// the first host.
func (ca *CA) Server(hosts ...string) (*Pair, error) {
	return ca.forHosts(hosts, x509.ExtKeyUsageServerAuth)
}

// ServerValid is Server with a certificate valid from notBefore to
// notAfter, rather than from an hour back to two days on: an expired
// certificate, or one not valid yet, for a test of what refuses it.
func (ca *CA) ServerValid(notBefore, notAfter time.Time, hosts ...string) (*Pair, error) {
	tmpl, err := hostsTemplate(hosts, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, err
	}
	tmpl.NotBefore, tmpl.NotAfter = notBefore, notAfter
	return ca.issue(tmpl)
}

// Peer issues a certificate good for both ends of a connection, for hosts
// (as Server): what etcd members present to each other.
func (ca *CA) Peer(hosts ...string) (*Pair, error) {
	return ca.forHosts(hosts, x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
}

// Client issues a certificate a client presents, with common name cn:
// etcd takes it as the user name when it runs with --client-cert-auth and
// the client sends no password.
func (ca *CA) Client(cn string) (*Pair, error) {
	return ca.issue(leaf(cn, x509.ExtKeyUsageClientAuth))
}

func (ca *CA) forHosts(hosts []string, usage ...x509.ExtKeyUsage) (*Pair, error) {
	tmpl, err := hostsTemplate(hosts, usage...)
	if err != nil {
		return nil, err
	}
	return ca.issue(tmpl)
}

// hostsTemplate is the template of a certificate for hosts (as Server).
func hostsTemplate(hosts []string, usage ...x509.ExtKeyUsage) (*x509.Certificate, error) {
	if len(hosts) == 0 {
		return nil, errors.New("tlstest: a server certificate needs at least one host")
	}
	tmpl := leaf(hosts[0], usage...)
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return tmpl, nil
}

func leaf(cn string, usage ...x509.ExtKeyUsage) *x509.Certificate {
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"snowlab tests"}},
		NotBefore:    now.Add(-backdated),
		NotAfter:     now.Add(validFor),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  usage,
	}
}

func (ca *CA) issue(tmpl *x509.Certificate) (*Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tlstest: key: %w", err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, fmt.Errorf("tlstest: certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("tlstest: certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("tlstest: key: %w", err)
	}
	certPEM := append(pemBlock("CERTIFICATE", der), ca.chain...)
	return &Pair{CertPEM: certPEM, KeyPEM: pemBlock("PRIVATE KEY", pk), Leaf: cert}, nil
}

// TLSCertificate is the pair as a tls.Config's Certificates take it.
func (p *Pair) TLSCertificate() tls.Certificate {
	c, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
	if err != nil {
		// The pair was made together by issue: they always match.
		panic("tlstest: an issued pair does not parse: " + err.Error())
	}
	return c
}

// Write writes the certificate and key to dir/name.crt and dir/name.key
// (the key readable by its owner only) and returns their paths. Each file
// is written whole in place: a reader that opens it during the write may
// see it cut short, as it may when an operator copies new files in.
func (p *Pair) Write(dir, name string) (certFile, keyFile string, err error) {
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certFile, p.CertPEM, 0o600); err != nil {
		return "", "", fmt.Errorf("tlstest: %w", err)
	}
	if err := os.WriteFile(keyFile, p.KeyPEM, 0o600); err != nil {
		return "", "", fmt.Errorf("tlstest: %w", err)
	}
	return certFile, keyFile, nil
}

// ClientConfig is a tls.Config for a client that trusts only ca and, when
// pair is not nil, presents pair: the other end of a server ca issued.
func ClientConfig(ca *CA, pair *Pair) *tls.Config {
	cfg := &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}
	if pair != nil {
		cfg.Certificates = []tls.Certificate{pair.TLSCertificate()}
	}
	return cfg
}

// serial is a random 128-bit serial number, unique in practice.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic("tlstest: crypto/rand failed: " + err.Error())
	}
	return n
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
