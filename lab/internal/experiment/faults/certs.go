package faults

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/snowlab/snowlab/etcdlease/tlstest"
)

// certs are a throwaway certificate authority and the certificate the
// rig's mutual TLS needs, as PEM files in one folder: one certificate
// that every server (etcd members, replicas and the kube-apiserver, all
// on 127.0.0.1) serves and every client (replicas dialling etcd, etcd
// members dialling each other, the lab calling the replicas) presents.
// Made for the run; nothing leaves the folder.
type certs struct {
	CA        string
	Cert, Key string
	caPool    *x509.CertPool
	client    tls.Certificate
}

// newCerts writes a CA and the certificate into dir, issued by tlstest
// (etcdlease's throwaway certificates, the one copy the tests and the lab
// share).
func newCerts(dir string) (*certs, error) {
	ca, err := tlstest.NewCA("snowlab faults CA")
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	c := &certs{caPool: ca.Pool()}
	if c.CA, err = ca.WriteCert(dir, "ca.pem"); err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	// etcd checks a peer's client certificate for the server usage too
	// (a peer is both): the certificate carries both usages (tlstest's
	// Peer), for 127.0.0.1 where every server of the rig listens.
	peer, err := ca.Peer("127.0.0.1", "localhost")
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	if c.Cert, c.Key, err = peer.Write(dir, "peer"); err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	c.client = peer.TLSCertificate()
	return c, nil
}

// ClientTLS is the lab's side of mutual TLS: the CA trusted, the client
// certificate presented; nil (plaintext) for nil certs.
func (c *certs) ClientTLS() *tls.Config {
	if c == nil {
		return nil
	}
	return &tls.Config{RootCAs: c.caPool, Certificates: []tls.Certificate{c.client}, MinVersion: tls.VersionTLS12}
}
