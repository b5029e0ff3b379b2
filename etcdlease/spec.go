package etcdlease

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/snowlab/snowlab/nodeid"
)

// ReachTimeout is how long Opener's store waits for the first answer from
// etcd before it gives up on the endpoints.
const ReachTimeout = 3 * time.Second

// Opener returns the nodeid.Opener for "etcd:" lease specs:
// "etcd:ENDPOINT[,ENDPOINT...][/PREFIX]", each ENDPOINT HOST:PORT,
// http://HOST:PORT or https://HOST:PORT (TLS with the system's roots), as
// scripts/etcd.sh prints it: etcd:http://127.0.0.1:2379/myapp. The store's
// leases last ttl. Pass it to nodeid.OpenStore as extra["etcd"]. It asks
// etcd for its status before it returns, so that an etcd that is not there
// is one error within ReachTimeout, not a lease that never comes. The
// connection stays open for the life of the process.
func Opener(ttl time.Duration) nodeid.Opener {
	return func(rest string) (nodeid.Store, error) {
		eps, prefix, err := parseSpec(rest)
		if err != nil {
			return nil, err
		}
		cli, err := newClient(eps)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), ReachTimeout)
		defer cancel()
		if err := reach(ctx, cli, eps); err != nil {
			_ = cli.Close()
			return nil, err
		}
		return New(cli, prefix, ttl), nil
	}
}

// parseSpec splits "ENDPOINT[,ENDPOINT...][/PREFIX]" into its endpoints and
// the key prefix ("/PREFIX", DefaultPrefix when there is none).
func parseSpec(rest string) (eps []string, prefix string, err error) {
	const want = "want HOST:PORT, http://HOST:PORT or https://HOST:PORT, comma-separated, then /PREFIX"
	s := rest
	for {
		scheme := ""
		if i := strings.Index(s, "://"); i >= 0 && i < strings.IndexAny(s+"/", ",/") {
			scheme, s = s[:i], s[i+3:]
			if scheme != "http" && scheme != "https" {
				return nil, "", fmt.Errorf("etcdlease: %q: scheme %q (%s)", rest, scheme+"://", want)
			}
		}
		end := strings.IndexAny(s, ",/")
		if end < 0 {
			end = len(s)
		}
		host := strings.TrimSpace(s[:end])
		if host == "" {
			return nil, "", fmt.Errorf("etcdlease: %q names no endpoint (%s)", rest, want)
		}
		if scheme != "" {
			host = scheme + "://" + host
		}
		eps = append(eps, host)
		s = s[end:]
		if !strings.HasPrefix(s, ",") {
			break
		}
		s = s[1:]
	}
	if prefix = strings.TrimRight(s, "/"); prefix == "" {
		prefix = DefaultPrefix
	}
	return eps, prefix, nil
}

// reach returns nil once one of the endpoints answers a status request,
// or one line saying why none did: none accepts a TCP connection (known at
// once), or none answered before ctx ended.
func reach(ctx context.Context, cli *clientv3.Client, eps []string) error {
	var dialErr error
	var open []string // the endpoints that accept a connection
	for _, ep := range eps {
		host := ep
		if _, h, ok := strings.Cut(ep, "://"); ok {
			host = h
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", host)
		if err != nil {
			dialErr = err
			continue
		}
		_ = c.Close()
		open = append(open, ep)
	}
	const hint = "is it running? scripts/etcd.sh start prints an endpoint"
	if len(open) == 0 {
		return fmt.Errorf("etcdlease: no etcd at %s: %v (%s)", strings.Join(eps, ","), dialErr, hint)
	}
	var last error
	for _, ep := range open {
		_, err := cli.Status(ctx, ep)
		if err == nil {
			return nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return fmt.Errorf("etcdlease: no etcd answered at %s within %v: %v (%s)", strings.Join(eps, ","), ReachTimeout, last, hint)
}
