package faults

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/snowlab/snowlab/etcdlease/tlstest"
)

// certs are a throwaway certificate authority and the certificates the
// rig's mutual TLS needs, as PEM files in one folder: one server
// certificate for every server (etcd members and replicas, all on
// 127.0.0.1) and one client certificate for every client (replicas
// dialling etcd, etcd members dialling each other, the lab calling the
// replicas). Made for the run; nothing leaves the folder.
type certs struct {
	CA                    string
	ServerCert, ServerKey string
	ClientCert, ClientKey string
	caPool                *x509.CertPool
	client                tls.Certificate
}

// newCerts writes a CA, a server and a client certificate into dir,
// issued by tlstest (etcdlease's throwaway certificates, the one copy the
// tests and the lab share).
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
	// (a peer is both), so both certificates carry both usages (tlstest's
	// Peer), for 127.0.0.1 where every server of the rig listens.
	server, err := ca.Peer("127.0.0.1", "localhost")
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	client, err := ca.Peer("127.0.0.1", "localhost")
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	if c.ServerCert, c.ServerKey, err = server.Write(dir, "server"); err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	if c.ClientCert, c.ClientKey, err = client.Write(dir, "client"); err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	c.client = client.TLSCertificate()
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
