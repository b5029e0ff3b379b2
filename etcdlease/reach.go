package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	grpcstatus "google.golang.org/grpc/status"
)

// ReachTimeout is how long a Store's Acquire waits for etcd's first answer
// before it gives up on the endpoints, however long its context allows:
// an etcd that is not there is an error at once when nothing listens on
// its ports, and within ReachTimeout when something does but does not
// answer.
const ReachTimeout = 3 * time.Second

// ErrUnreachable: none of the store's etcd endpoints answered within
// ReachTimeout. The error names the endpoints (never credentials). It says
// nothing about the spec: the same store may work once etcd is up.
var ErrUnreachable = errors.New("etcdlease: no etcd")

// reachHint ends an ErrUnreachable line.
const reachHint = "is it running? scripts/etcd.sh start prints an endpoint"

// tlsHint ends an ErrUnreachable line whose cause is the TLS handshake:
// something is there, and refuses the client or is not trusted by it.
const tlsHint = "check the CA that signed etcd's certificate, and the client certificate etcd demands"

// reach returns nil once one of cli's endpoints answers a status request
// within timeout, or one line saying why none did: none accepts a
// connection (known at once), none answered in time, or ctx ended first.
func reach(ctx context.Context, cli *clientv3.Client, timeout time.Duration) error {
	eps := cli.Endpoints()
	where := endpointNames(eps)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	open, err := dialable(ctx, rctx, eps, where)
	if err != nil {
		return err
	}
	var last error
	for rctx.Err() == nil {
		for _, ep := range open {
			err := status(rctx, cli, ep)
			if err == nil {
				return nil
			}
			if last == nil || rctx.Err() == nil {
				last = err // a timeout says less than the error before it
			}
			if tlsRefused(err) {
				// etcd is there and answered the handshake: asking
				// again within the timeout gets the same answer.
				return unreachable(where, timeout, last)
			}
		}
		select {
		case <-rctx.Done():
		case <-time.After(reachPause):
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("etcdlease: asking %s for its status: %w", where, ctx.Err())
	}
	return unreachable(where, timeout, last)
}

// unreachable is the ErrUnreachable of endpoints that accepted a
// connection and did not answer, last the error of the last question.
func unreachable(where string, timeout time.Duration, last error) error {
	if tlsRefused(last) {
		return fmt.Errorf("%w: the TLS handshake with %s failed: %s (%s)", ErrUnreachable, where, grpcMessage(last), tlsHint)
	}
	return fmt.Errorf("%w answered at %s within %v: %s (%s)", ErrUnreachable, where, timeout, grpcMessage(last), reachHint)
}

// tlsRefused reports whether err is a TLS handshake that failed: a
// certificate not trusted, or refused by the server.
func tlsRefused(err error) bool {
	msg := grpcMessage(err)
	return strings.Contains(msg, "tls:") || strings.Contains(msg, "x509:")
}

// reachPause is how long reach waits before it asks endpoints that
// refused again.
const reachPause = 100 * time.Millisecond

// status asks ep for its status over a connection of its own, failing as
// soon as the connection does rather than waiting for it to come back, so
// that the error says why it failed: a TLS handshake refused, a
// certificate not trusted. (The client's own Status waits for a
// connection until the deadline, and then says only that the deadline
// passed.)
func status(ctx context.Context, cli *clientv3.Client, ep string) error {
	conn, err := cli.Dial(ep)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = pb.NewMaintenanceClient(conn).Status(ctx, &pb.StatusRequest{}, grpc.WaitForReady(false))
	return err
}

// grpcMessage is err without gRPC's "rpc error: code = … desc = "
// prefix.
func grpcMessage(err error) string {
	if s, ok := grpcstatus.FromError(err); ok {
		return s.Message()
	}
	return err.Error()
}

// dialable returns the endpoints among eps that accept a TCP connection
// within rctx, or one line saying why none did: nothing listens on them
// (known at once), or ctx (the caller's) ended first. where names eps.
func dialable(ctx, rctx context.Context, eps []string, where string) ([]string, error) {
	var dialErrs []string
	var open []string
	for _, ep := range eps {
		network, addr := endpointAddr(ep)
		var d net.Dialer
		c, err := d.DialContext(rctx, network, addr)
		if err != nil {
			dialErrs = append(dialErrs, err.Error())
			continue
		}
		_ = c.Close()
		open = append(open, ep)
	}
	if len(open) > 0 {
		return open, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("etcdlease: connecting to %s: %w", where, ctx.Err())
	}
	return nil, fmt.Errorf("%w at %s: %s (%s)", ErrUnreachable, where, strings.Join(dialErrs, "; "), reachHint)
}

// endpointAddr is where to dial an endpoint as the etcd client takes it
// (HOST:PORT, http://, https://, unix://, unixs://), without user
// information or path.
func endpointAddr(ep string) (network, addr string) {
	network, rest := "tcp", ep
	if scheme, r, ok := strings.Cut(ep, "://"); ok {
		rest = r
		if scheme == "unix" || scheme == "unixs" {
			return "unix", rest
		}
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	return network, rest
}

// endpointName is ep as an error names it: its scheme and address, never
// user information.
func endpointName(ep string) string {
	_, addr := endpointAddr(ep)
	if scheme, _, ok := strings.Cut(ep, "://"); ok {
		return scheme + "://" + addr
	}
	return addr
}
