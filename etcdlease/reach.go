package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
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

// reach returns nil once one of cli's endpoints answers a status request
// within timeout, or one line saying why none did: none accepts a
// connection (known at once), none answered in time, or ctx ended first.
func reach(ctx context.Context, cli *clientv3.Client, timeout time.Duration) error {
	eps := cli.Endpoints()
	names := make([]string, len(eps))
	for i, ep := range eps {
		names[i] = endpointName(ep)
	}
	where := strings.Join(names, ",")
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var dialErrs []string
	var open []string // the endpoints that accept a connection
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
	if len(open) == 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("etcdlease: connecting to %s: %w", where, ctx.Err())
		}
		return fmt.Errorf("%w at %s: %s (%s)", ErrUnreachable, where, strings.Join(dialErrs, "; "), reachHint)
	}
	var last error
	for _, ep := range open {
		_, err := cli.Status(rctx, ep)
		if err == nil {
			return nil
		}
		last = err
		if rctx.Err() != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("etcdlease: asking %s for its status: %w", where, ctx.Err())
	}
	return fmt.Errorf("%w answered at %s within %v: %v (%s)", ErrUnreachable, where, timeout, last, reachHint)
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
