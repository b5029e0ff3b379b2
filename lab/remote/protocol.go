package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/snowidd/client"
)

// Protocol is a wire protocol a snowidd replica answers on its one port.
type Protocol int

const (
	// GRPC is gRPC over unencrypted HTTP/2 (the zero value).
	GRPC Protocol = iota
	// ConnectProto is the Connect protocol with binary protobuf.
	ConnectProto
	// ConnectJSON is the Connect protocol with JSON, as curl speaks it.
	ConnectJSON
	// GRPCWeb is gRPC-Web with binary protobuf over HTTP/1.1, as a
	// browser's client speaks it to a server with no proxy in front: the
	// status comes in a trailer frame at the end of the body.
	GRPCWeb
)

// Protocols is every protocol, in the order a run measures them.
var Protocols = []Protocol{GRPC, GRPCWeb, ConnectProto, ConnectJSON}

func (p Protocol) String() string {
	switch p {
	case GRPC:
		return "grpc"
	case ConnectProto:
		return "connect+proto"
	case ConnectJSON:
		return "connect+json"
	case GRPCWeb:
		return "grpc-web"
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// ErrProtocol is wrapped by the error for a protocol name or number this
// package does not speak.
var ErrProtocol = errors.New("remote: unknown protocol")

// ParseProtocol reads a Protocol's String.
func ParseProtocol(s string) (Protocol, error) {
	for _, p := range Protocols {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w %q (want one of %s)", ErrProtocol, s, JoinProtocols(Protocols, ", "))
}

// JoinProtocols is the names of ps separated by sep.
func JoinProtocols(ps []Protocol, sep string) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.String()
	}
	return strings.Join(names, sep)
}

// ErrCall is wrapped by every error a replica answered with or a call that
// failed on the wire.
var ErrCall = errors.New("remote: call failed")

// maxResponse bounds a response body: 100,000 IDs are 800 KB as protobuf,
// about 2.1 MB as JSON strings.
const maxResponse = 8 << 20

const servicePath = "/snowlab.v1.IDService/"

// conn calls one replica over one protocol.
type conn struct {
	base  string
	proto Protocol
	hc    *http.Client
}

// maxIdleConns is how many idle HTTP/1.1 connections a conn keeps: as
// many as the lab may run callers, so that each caller's next call finds
// its connection open and a run measures calls, not TCP handshakes (the
// Transport's default keeps two).
const maxIdleConns = 10_000

// newConn makes the client for base. gRPC and Connect go over HTTP/2,
// which gRPC needs and Connect accepts: unencrypted (h2c, prior
// knowledge) to an http:// base, over TLS configured by tlsConfig
// (negotiated by ALPN) to an https:// one; one connection carries many
// callers' calls, as a real client's would. gRPC-Web goes over HTTP/1.1,
// one connection per call in flight.
func newConn(base string, p Protocol, tlsConfig *tls.Config) (*conn, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("remote: base URL %q: want http://HOST:PORT or https://HOST:PORT", base)
	}
	if tlsConfig != nil && u.Scheme != "https" {
		return nil, fmt.Errorf("remote: base URL %q with a TLS configuration: want https://HOST:PORT", base)
	}
	if p < GRPC || p > GRPCWeb {
		return nil, fmt.Errorf("%w %d", ErrProtocol, int(p))
	}
	var protos http.Protocols
	switch {
	case p == GRPCWeb:
		protos.SetHTTP1(true)
	case u.Scheme == "https":
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
	return &conn{base: strings.TrimSuffix(base, "/"), proto: p, hc: &http.Client{Transport: tr}}, nil
}

// nextID calls NextID.
func (c *conn) nextID() (uint64, error) { return c.nextIDContext(context.Background()) }

// nextIDContext is nextID within ctx.
func (c *conn) nextIDContext(ctx context.Context) (uint64, error) {
	if c.proto == ConnectJSON {
		var r struct {
			ID string `json:"id"`
		}
		if err := c.callJSON(ctx, "NextID", `{}`, &r); err != nil {
			return 0, err
		}
		return parseID(r.ID)
	}
	msg, err := c.callProto(ctx, "NextID", nil)
	if err != nil {
		return 0, err
	}
	id, err := decodeNextIDResponse(msg)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w: NextID: %w", ErrCall, err)
	case id == 0:
		return 0, fmt.Errorf("%w: NextID answered no id", ErrCall)
	}
	return id, nil
}

// nextIDs calls NextIDs for n IDs and checks that n came back.
func (c *conn) nextIDs(n int) ([]uint64, error) { return c.nextIDsContext(context.Background(), n) }

// nextIDsContext is nextIDs within ctx.
func (c *conn) nextIDsContext(ctx context.Context, n int) ([]uint64, error) {
	var ids []uint64
	if c.proto == ConnectJSON {
		var r struct {
			IDs []string `json:"ids"`
		}
		if err := c.callJSON(ctx, "NextIDs", `{"count":`+strconv.Itoa(n)+`}`, &r); err != nil {
			return nil, err
		}
		ids = make([]uint64, len(r.IDs))
		for i, s := range r.IDs {
			id, err := parseID(s)
			if err != nil {
				return nil, err
			}
			ids[i] = id
		}
	} else {
		msg, err := c.callProto(ctx, "NextIDs", nextIDsRequest(uint32(n)))
		if err != nil {
			return nil, err
		}
		if ids, err = decodeNextIDsResponse(msg, n); err != nil {
			return nil, fmt.Errorf("%w: NextIDs: %w", ErrCall, err)
		}
	}
	if len(ids) != n {
		return nil, fmt.Errorf("%w: NextIDs(%d) answered %d IDs", ErrCall, n, len(ids))
	}
	return ids, nil
}

// parseID reads a 64-bit ID as Protobuf's JSON writes it: a decimal string.
func parseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 {
		return 0, fmt.Errorf("%w: id %q is not a decimal 64-bit ID", ErrCall, s)
	}
	return id, nil
}

// post sends body to method and returns the response with its body read.
func (c *conn) post(ctx context.Context, method, contentType string, body []byte, header http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+servicePath+method, bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrCall, method, err)
	}
	req.Header = header
	req.Header.Set("Content-Type", contentType)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrCall, method, err)
	}
	defer resp.Body.Close()
	// Read to the end, which is also when HTTP/2 trailers arrive.
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err == nil && len(data) > maxResponse {
		err = fmt.Errorf("response body over %d bytes", maxResponse)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrCall, method, err)
	}
	return resp, data, nil
}

// callJSON is a Connect unary call with JSON.
func (c *conn) callJSON(ctx context.Context, method, body string, out any) error {
	resp, data, err := c.post(ctx, method, "application/json", []byte(body), http.Header{})
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return connectError(method, resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %s: response: %v", ErrCall, method, err)
	}
	return nil
}

// callProto is a unary call with binary protobuf over gRPC, gRPC-Web or
// Connect; it returns the response message.
func (c *conn) callProto(ctx context.Context, method string, msg []byte) ([]byte, error) {
	if c.proto == ConnectProto {
		resp, data, err := c.post(ctx, method, "application/proto", msg, http.Header{})
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, connectError(method, resp.StatusCode, data)
		}
		return data, nil
	}
	contentType, header, read := "application/grpc", http.Header{"Te": {"trailers"}}, grpcMessage
	if c.proto == GRPCWeb {
		// X-Grpc-Web is what the browsers' clients send; TE: trailers
		// is not, HTTP/1.1 having no trailers a browser can read.
		contentType, header, read = "application/grpc-web+proto", http.Header{"X-Grpc-Web": {"1"}}, grpcWebMessage
	}
	resp, data, err := c.post(ctx, method, contentType, grpcFrame(msg), header)
	if err != nil {
		return nil, err
	}
	if msg, err = read(resp, data); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCall, method, err)
	}
	return msg, nil
}

// connectError is the error for a Connect call answered with a status
// other than 200: the body is {"code": …, "message": …} when the server
// got as far as Connect.
func connectError(method string, status int, body []byte) error {
	var e struct{ Code, Message string }
	if json.Unmarshal(body, &e) != nil || e.Code == "" {
		return fmt.Errorf("%w: %s: HTTP %d", ErrCall, method, status)
	}
	return fmt.Errorf("%w: %s: %w", ErrCall, method, &StatusError{Code: e.Code, Message: e.Message})
}
