package remote

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/client"
)

// errCall is wrapped by every error a replica answered with or a call that
// failed on the wire.
var errCall = errors.New("remote: call failed")

// CodeOf is the status code the replica answered with in err's chain, as
// the Connect protocol names it ("unavailable", "invalid_argument"),
// whichever protocol carried it; "" when the replica sent none (a call
// that failed on the wire or ran out of time, nil).
func CodeOf(err error) string {
	if err == nil || !connect.IsWireError(err) {
		return ""
	}
	return connect.CodeOf(err).String()
}

// maxIdleConns is how many idle HTTP/1.1 connections a replica's
// transport keeps: as many as the lab may run callers, so that each
// caller's next call finds its connection open and a run measures calls,
// not TCP handshakes (the Transport's default keeps two).
const maxIdleConns = 10_000

// conn is one replica's client, making one attempt per call (no
// failover: the lab measures this replica, and counts its refusals), and
// the HTTP client under it.
type conn struct {
	base string
	c    *client.Client
	hc   *http.Client
}

// dial makes the client for the replica at base. gRPC and Connect go over
// HTTP/2, which gRPC needs and Connect accepts: unencrypted (h2c, prior
// knowledge) to an http:// base, over TLS configured by tlsConfig
// (negotiated by ALPN) to an https:// one; one connection carries many
// callers' calls, as a real client's would. gRPC-Web goes over HTTP/1.1.
func dial(base string, p client.Protocol, tlsConfig *tls.Config) (*conn, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("remote: base URL %q: want http://HOST:PORT or https://HOST:PORT", base)
	}
	if tlsConfig != nil && u.Scheme != "https" {
		return nil, fmt.Errorf("remote: base URL %q with a TLS configuration: want https://HOST:PORT", base)
	}
	hc := httpClient(u.Scheme == "https", p == client.GRPCWeb, tlsConfig)
	base = strings.TrimSuffix(base, "/")
	c, err := client.New(client.Config{Targets: []string{base}, Protocol: p, HTTPClient: hc, Rounds: 1})
	if err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	return &conn{base: base, c: c, hc: hc}, nil
}

// httpClient is the HTTP client for one replica: HTTP/1.1 for gRPC-Web
// (http1), else HTTP/2 over TLS or, unencrypted, by prior knowledge.
func httpClient(overTLS, http1 bool, tlsConfig *tls.Config) *http.Client {
	var protos http.Protocols
	switch {
	case http1:
		protos.SetHTTP1(true)
	case overTLS:
		protos.SetHTTP2(true)
	default:
		protos.SetUnencryptedHTTP2(true)
	}
	if tlsConfig != nil {
		// The protocols offered by ALPN are the Transport's to set from
		// protos: a config made for another client may name others.
		tlsConfig = tlsConfig.Clone()
		tlsConfig.NextProtos = nil
	}
	var d net.Dialer
	tr := &http.Transport{Protocols: &protos, IdleConnTimeout: 30 * time.Second, MaxIdleConnsPerHost: maxIdleConns,
		TLSClientConfig: tlsConfig,
		// Coalesced as the server's are: the lab measures the server, and
		// a client that spends a system call per frame caps it first. The
		// Transport runs TLS over the connection dialled here, so the
		// coalescing is below TLS, as the server's is.
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return client.NewConn(c), nil
		}}
	return &http.Client{Transport: tr}
}

// nextID calls NextID.
func (r *conn) nextID(ctx context.Context) (uint64, error) {
	id, err := r.c.NextID(ctx)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w: NextID: %w", errCall, err)
	case id == 0:
		return 0, fmt.Errorf("%w: NextID answered no id", errCall)
	}
	return uint64(id), nil
}

// nextIDs calls NextIDs for n IDs, 1 to client.MaxBatch: all n, in
// increasing order, or an error.
func (r *conn) nextIDs(ctx context.Context, n int) ([]snowlab.ID, error) {
	ids, err := r.c.NextIDs(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("%w: NextIDs(%d): %w", errCall, n, err)
	}
	return ids, nil
}
