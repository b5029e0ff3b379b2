package remote

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Client calls one replica call by call, with a context each, for a lab
// that needs what every call answered (the fault lab: which refused, with
// what code, how long it took) rather than a subject's stream of IDs.
// It is safe for concurrent use; its calls share the connection.
type Client struct {
	c *conn
}

// NewClient is a Client for the replica at base over protocol p: an
// http:// base in plaintext, an https:// one over TLS with tlsConfig (the
// CA to trust; a client certificate for mutual TLS), as SubjectTLS dials.
func NewClient(base string, p Protocol, tlsConfig *tls.Config) (*Client, error) {
	c, err := newConn(base, p, tlsConfig)
	if err != nil {
		return nil, err
	}
	return &Client{c: c}, nil
}

// URL is the replica's base URL.
func (c *Client) URL() string { return c.c.base }

// NextID calls NextID. A refusal is an error wrapping ErrCall and a
// *StatusError (CodeOf reads its code).
func (c *Client) NextID(ctx context.Context) (uint64, error) { return c.c.nextIDContext(ctx) }

// NextIDs calls NextIDs for n IDs, 1 to MaxBatch: all n or an error.
func (c *Client) NextIDs(ctx context.Context, n int) ([]uint64, error) {
	if n < 1 || n > MaxBatch {
		return nil, fmt.Errorf("remote: NextIDs(%d): want 1 to %d", n, MaxBatch)
	}
	return c.c.nextIDsContext(ctx, n)
}

// Clock reads the replica's GET /clock and returns its reading and the
// round trip it came in; the reading was taken inside it. A replica
// older than GET /clock answers 404, an error.
func (c *Client) Clock(ctx context.Context) (unixNano int64, rtt time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.c.base+"/clock", nil)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: clock: %v", ErrCall, err)
	}
	start := time.Now()
	resp, err := c.c.hc.Do(req)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: clock: %v", ErrCall, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	rtt = time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: clock: %v", ErrCall, err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("%w: clock: HTTP %d", ErrCall, resp.StatusCode)
	}
	var a struct {
		UnixNano string `json:"unix_nano"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return 0, 0, fmt.Errorf("%w: clock: %v", ErrCall, err)
	}
	ns, err := strconv.ParseInt(a.UnixNano, 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: clock: unix_nano %q is not a number", ErrCall, a.UnixNano)
	}
	return ns, rtt, nil
}

// CloseIdleConnections closes the client's idle connections, so that the
// next call dials afresh.
func (c *Client) CloseIdleConnections() { c.c.hc.CloseIdleConnections() }
