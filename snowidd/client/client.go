package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"github.com/snowlab/snowlab"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
	"github.com/snowlab/snowlab/snowidd/idservice"
)

// MaxBatch is the most IDs one NextIDs call asks for: the server's
// limit (idservice.MaxBatch), checked here so that a call over it fails
// before it is sent.
const MaxBatch = idservice.MaxBatch

// Config configures a Client. Only Targets is required.
type Config struct {
	// Targets are the replicas' base URLs, such as http://10.0.0.1:8080.
	Targets []string
	// Protocol is the wire protocol; the zero value is GRPC.
	Protocol Protocol
	// HTTPClient carries the calls; nil is HTTPClient(TLS): HTTP/2
	// (which every protocol may use, and gRPC needs), unencrypted to
	// http:// targets and over TLS to https:// ones.
	HTTPClient connect.HTTPClient
	// TLS configures the TLS of https:// targets when HTTPClient is nil:
	// the CA to trust (RootCAs; nil is the system's) and, for replicas
	// serving mutual TLS, the client's certificate (Certificates).
	TLS *tls.Config
	// Rounds is how many times a call may go round all the replicas
	// before it fails; 0 is 3.
	Rounds int
	// Backoff is the pause after every replica refused in a row; it
	// doubles up to 1 s. 0 is 50 ms.
	Backoff time.Duration
	// AttemptTimeout bounds one attempt on one replica, so that a replica
	// that hangs (frozen, or cut off) costs a caller this long, not its
	// whole deadline; 0 is no bound but the caller's context.
	AttemptTimeout time.Duration
}

// Client calls a fleet of snowidd replicas. It is safe for concurrent use.
type Client struct {
	cfg      Config
	replicas []snowlabv1connect.IDServiceClient
	next     atomic.Uint64 // the replica the next call starts at
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	if len(cfg.Targets) == 0 {
		return nil, errors.New("snowidd client: no targets")
	}
	if cfg.Rounds < 0 || cfg.Backoff < 0 || cfg.AttemptTimeout < 0 {
		return nil, fmt.Errorf("snowidd client: Rounds %d, Backoff %v and AttemptTimeout %v must not be negative", cfg.Rounds, cfg.Backoff, cfg.AttemptTimeout)
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = 3
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 50 * time.Millisecond
	}
	switch {
	case cfg.HTTPClient != nil && cfg.TLS != nil:
		return nil, errors.New("snowidd client: give TLS or HTTPClient, not both: an HTTPClient's transport carries its own TLS configuration")
	case cfg.HTTPClient == nil:
		cfg.HTTPClient = HTTPClient(cfg.TLS)
	}
	opts, err := cfg.Protocol.Options()
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg}
	for _, t := range cfg.Targets {
		if !strings.HasPrefix(t, "http://") && !strings.HasPrefix(t, "https://") {
			return nil, fmt.Errorf("snowidd client: target %q: want http://HOST:PORT or https://HOST:PORT", t)
		}
		c.replicas = append(c.replicas, snowlabv1connect.NewIDServiceClient(cfg.HTTPClient, strings.TrimRight(t, "/"), opts...))
	}
	return c, nil
}

// H2CClient is an HTTP client that speaks HTTP/2 without TLS (prior
// knowledge), the way gRPC clients reach a plaintext server.
func H2CClient() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p, MaxIdleConnsPerHost: 64}}
}

// HTTPClient is an HTTP client that speaks HTTP/2 to every target:
// without TLS (prior knowledge) to http:// ones, as H2CClient, and over
// TLS configured by tlsConfig (nil: the system's roots, no client
// certificate), negotiated by ALPN, to https:// ones.
func HTTPClient(tlsConfig *tls.Config) *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	p.SetHTTP2(true)
	if tlsConfig != nil {
		// ALPN offers what p says: a config made for another client may
		// name other protocols.
		tlsConfig = tlsConfig.Clone()
		tlsConfig.NextProtos = nil
	}
	return &http.Client{Transport: &http.Transport{Protocols: &p, MaxIdleConnsPerHost: 64, TLSClientConfig: tlsConfig}}
}

// retryable reports whether another replica may serve a call that failed
// with err: Unavailable is a replica's "not me, not now" (and what a
// refused connection becomes); the others are a connection torn down or
// an attempt timed out, the caller's own context being still alive. A
// retried mint is safe: an ID minted for a lost answer is a gap. What
// every replica would refuse the same way (InvalidArgument,
// FailedPrecondition, ...) is not retried.
func retryable(err error) bool {
	switch connect.CodeOf(err) {
	case connect.CodeUnavailable, connect.CodeCanceled, connect.CodeDeadlineExceeded,
		connect.CodeUnknown, connect.CodeAborted, connect.CodeInternal:
		return true
	}
	return false
}

// call runs f on one replica after another, starting at the next in
// turn, until one answers or every round was refused.
func call[T any](ctx context.Context, c *Client, f func(context.Context, snowlabv1connect.IDServiceClient) (T, error)) (T, error) {
	n := uint64(len(c.replicas))
	start := c.next.Add(1) - 1
	wait := c.cfg.Backoff
	var last error
	var zero T
	for attempt := range uint64(c.cfg.Rounds) * n {
		if attempt > 0 && attempt%n == 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return zero, fmt.Errorf("snowidd client: %w (after: %w)", ctx.Err(), last)
			case <-t.C:
			}
			wait = min(2*wait, time.Second)
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		if c.cfg.AttemptTimeout > 0 {
			actx, cancel = context.WithTimeout(ctx, c.cfg.AttemptTimeout)
		}
		r, err := f(actx, c.replicas[(start+attempt)%n])
		cancel()
		if err == nil {
			return r, nil
		}
		if !retryable(err) || ctx.Err() != nil {
			return zero, err
		}
		last = err
	}
	if n == 1 && c.cfg.Rounds == 1 {
		return zero, last // the one attempt's error is the whole story
	}
	return zero, fmt.Errorf("snowidd client: every replica refused %d times; the last: %w", c.cfg.Rounds, last)
}

// NextID returns a new ID.
func (c *Client) NextID(ctx context.Context) (snowlab.ID, error) {
	return call(ctx, c, func(ctx context.Context, r snowlabv1connect.IDServiceClient) (snowlab.ID, error) {
		resp, err := r.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
		if err != nil {
			return 0, err
		}
		return snowlab.ID(resp.Msg.GetId()), nil
	})
}

// NextIDs returns n new IDs (1..MaxBatch), increasing, all from one
// replica.
func (c *Client) NextIDs(ctx context.Context, n int) ([]snowlab.ID, error) {
	if n < 1 || n > MaxBatch {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("snowidd client: count %d is out of range: want 1..%d", n, MaxBatch))
	}
	return call(ctx, c, func(ctx context.Context, r snowlabv1connect.IDServiceClient) ([]snowlab.ID, error) {
		resp, err := r.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: uint32(n)}))
		if err != nil {
			return nil, err
		}
		raw := resp.Msg.GetIds()
		if len(raw) != n {
			return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("snowidd client: asked for %d IDs, got %d", n, len(raw)))
		}
		ids := make([]snowlab.ID, n)
		for i, v := range raw {
			ids[i] = snowlab.ID(v)
		}
		return ids, nil
	})
}

// Decode asks a replica to split id into its parts under its layout.
func (c *Client) Decode(ctx context.Context, id snowlab.ID) (snowlab.Parts, error) {
	return call(ctx, c, func(ctx context.Context, r snowlabv1connect.IDServiceClient) (snowlab.Parts, error) {
		resp, err := r.Decode(ctx, connect.NewRequest(&snowlabv1.DecodeRequest{Id: uint64(id)}))
		if err != nil {
			return snowlab.Parts{}, err
		}
		m := resp.Msg
		return snowlab.Parts{Time: m.GetTime().AsTime(), Node: int(m.GetNode()), Seq: int(m.GetSequence())}, nil
	})
}
