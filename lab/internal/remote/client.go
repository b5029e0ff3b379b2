package remote

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/client"
)

// Client calls one replica call by call, with a context each and one
// attempt each, for a lab that needs what every call answered (the fault
// lab: which refused, with what code, how long it took) rather than a
// subject's stream of IDs. It is safe for concurrent use; its calls share
// the connection.
type Client struct {
	r *conn
}

// NewClient is a Client for the replica at base over protocol p: an
// http:// base in plaintext, an https:// one over TLS with tlsConfig (the
// CA to trust; a client certificate for mutual TLS), as Subject dials.
func NewClient(base string, p client.Protocol, tlsConfig *tls.Config) (*Client, error) {
	r, err := dial(base, p, tlsConfig)
	if err != nil {
		return nil, err
	}
	return &Client{r: r}, nil
}

// NextID calls NextID. A refusal is an error wrapping errCall that
// carries the replica's status code (CodeOf reads it).
func (c *Client) NextID(ctx context.Context) (uint64, error) { return c.r.nextID(ctx) }

// NextIDs calls NextIDs for n IDs, 1 to client.MaxBatch: all n or an
// error.
func (c *Client) NextIDs(ctx context.Context, n int) ([]snowlab.ID, error) {
	return c.r.nextIDs(ctx, n)
}

// Clock reads the replica's GET /clock and returns its
// reading and the round trip it came in; the reading was taken inside it.
// A replica older than GET /clock answers 404, an error.
func (c *Client) Clock(ctx context.Context) (unixNano int64, rtt time.Duration, err error) {
	defer func() {
		if err != nil {
			unixNano, rtt, err = 0, 0, fmt.Errorf("%w: clock: %v", errCall, err)
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.r.base+"/clock", nil)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	resp, err := c.r.hc.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	rtt = time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	// The nanoseconds are a decimal string, as snowidd's IDs are.
	var a struct {
		UnixNano int64 `json:"unix_nano,string"`
	}
	err = json.Unmarshal(body, &a)
	return a.UnixNano, rtt, err
}
