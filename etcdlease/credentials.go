package etcdlease

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// ErrAuth: etcd answered that the store's credentials are refused (a
// wrong password, an unknown user, no user where auth is enabled) or that
// the user may not touch the store's keys. Asking again changes nothing
// until someone fixes the credentials or the user's roles, so a holder
// should stop rather than retry. The error never holds the password.
var ErrAuth = errors.New("etcdlease: etcd refused the credentials")

// Credentials are what a store's client shows a secured etcd: TLS (the CA
// that signed etcd's certificate, and a client certificate when etcd runs
// with --client-cert-auth) and a user's name and password when etcd has
// auth enabled. The zero value is none: plaintext, or https:// endpoints
// checked against the system's roots.
//
// A Credentials value formats (with fmt, in an error or a log line)
// without its password.
type Credentials struct {
	// TLS secures the connections; nil is plaintext for HOST:PORT
	// endpoints and the system's roots for https:// ones. An http://
	// endpoint with TLS set is refused: the client would drop TLS there.
	TLS *tls.Config
	// Username and Password authenticate to etcd's auth; give both or
	// neither. With a client certificate and no user, etcd takes the
	// certificate's common name as the user.
	Username string
	Password string
}

// String describes the credentials without the password.
func (c Credentials) String() string {
	var parts []string
	switch {
	case c.TLS == nil:
		parts = append(parts, "no TLS")
	case len(c.TLS.Certificates) > 0 || c.TLS.GetClientCertificate != nil:
		parts = append(parts, "TLS with a client certificate")
	default:
		parts = append(parts, "TLS")
	}
	if c.Username != "" {
		parts = append(parts, fmt.Sprintf("user %q", c.Username))
	}
	if c.Password != "" {
		parts = append(parts, "a password")
	}
	return strings.Join(parts, ", ")
}

// Format is String for every verb (%v, %+v, %#v, %s, %q): a Credentials
// printed by mistake never shows the password.
func (c Credentials) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// check refuses credentials that cannot work with endpoints.
func (c Credentials) check(endpoints []string) error {
	if (c.Username == "") != (c.Password == "") {
		if c.Username == "" {
			return fmt.Errorf("%w: etcdlease: a password without a user name", snowlab.ErrInvalidConfig)
		}
		return fmt.Errorf("%w: etcdlease: user %q without a password", snowlab.ErrInvalidConfig, c.Username)
	}
	if c.TLS != nil {
		for _, ep := range endpoints {
			if strings.HasPrefix(ep, "http://") {
				return fmt.Errorf("%w: etcdlease: endpoint %s is plaintext (http://) but TLS is configured: write it https://%s",
					snowlab.ErrInvalidConfig, endpointName(ep), strings.TrimPrefix(endpointName(ep), "http://"))
			}
		}
	}
	return nil
}

// DialWith is Dial with credentials for a secured etcd: TLS, a client
// certificate, a user and password. Like Dial it does not wait for the
// cluster: with a password, whose check is a request to etcd, the client
// is made by the store's first Acquire, which fails with ErrUnreachable
// when no endpoint answers within ReachTimeout and with ErrAuth when etcd
// refuses the password. The error for credentials that cannot work with
// endpoints (a user without a password, TLS with an http:// endpoint)
// wraps snowlab.ErrInvalidConfig.
func DialWith(endpoints []string, prefix string, ttl time.Duration, cred Credentials) (nodeid.Store, func() error, error) {
	if err := cred.check(endpoints); err != nil {
		return nil, nil, err
	}
	cfg := clientConfig(endpoints, cred)
	if cred.Password == "" {
		cli, err := clientv3.New(cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("etcdlease: connect to %s: %w", endpointNames(endpoints), err)
		}
		return New(cli, prefix, ttl), cli.Close, nil
	}
	s := newStore(nil, prefix, ttl)
	s.connect = func(ctx context.Context) (*clientv3.Client, error) { return s.authenticate(ctx, cfg) }
	return s, s.closeClient, nil
}

// OpenerWith is Opener with credentials for the stores it opens (see
// DialWith).
func OpenerWith(ttl time.Duration, cred Credentials) nodeid.Opener {
	return nodeid.OpenerFunc(func(rest string) (nodeid.Store, error) {
		eps, prefix, err := parseSpec(rest)
		if err != nil {
			return nil, err
		}
		st, _, err := DialWith(eps, prefix, ttl, cred)
		return st, err
	})
}

// clientConfig is the client configuration of Dial and DialWith. Its log
// is silenced: the client would log each retry of a request to an
// unreachable etcd as a JSON line on stderr, while the request's error
// already says what failed.
func clientConfig(endpoints []string, cred Credentials) clientv3.Config {
	return clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		DialOptions: DialOptions(),
		Logger:      zap.NewNop(),
		TLS:         cred.TLS,
		Username:    cred.Username,
		Password:    cred.Password,
	}
}

// authenticate makes the client of a store dialled with a password.
// clientv3.New authenticates before it returns, and a failure to reach
// etcd then says only that its deadline passed, so a client without the
// password asks etcd for its status first (which needs no user), and the
// authentication gets what is left of the store's reach timeout.
func (s *Store) authenticate(ctx context.Context, cfg clientv3.Config) (*clientv3.Client, error) {
	start := time.Now()
	anon := cfg
	anon.Username, anon.Password = "", ""
	probe, err := clientv3.New(anon)
	if err != nil {
		return nil, fmt.Errorf("etcdlease: connect to %s: %w", endpointNames(cfg.Endpoints), err)
	}
	err = reach(ctx, probe, s.reachTimeout)
	_ = probe.Close()
	if err != nil {
		return nil, err
	}
	cfg.DialTimeout = max(s.reachTimeout-time.Since(start), 100*time.Millisecond)
	cli, err := clientv3.New(cfg)
	where := endpointNames(cfg.Endpoints)
	switch {
	case err == nil:
		return cli, nil
	case authRefused(err):
		return nil, fmt.Errorf("%w: user %q at %s: %v", ErrAuth, cfg.Username, where, err)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("etcdlease: authenticating at %s: %w", where, ctx.Err())
	}
	return nil, fmt.Errorf("%w answered at %s within %v: authenticating: %v (%s)", ErrUnreachable, where, s.reachTimeout, err, reachHint)
}

// closeClient closes the client if the store made one, and keeps it from
// making another.
func (s *Store) closeClient() error {
	s.cliMu.Lock()
	defer s.cliMu.Unlock()
	s.closed = true
	if s.cli == nil {
		return nil
	}
	return s.cli.Close()
}

// client is the store's etcd client, made on the first call for a store
// dialled with a password.
func (s *Store) client(ctx context.Context) (*clientv3.Client, error) {
	s.cliMu.Lock()
	defer s.cliMu.Unlock()
	switch {
	case s.cli != nil:
		return s.cli, nil
	case s.closed:
		return nil, errors.New("etcdlease: the store's connection is closed")
	}
	cli, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	s.cli = cli
	return cli, nil
}

// authRefused reports whether err is etcd refusing the credentials or
// the user's permissions: nothing a retry changes.
func authRefused(err error) bool {
	for _, e := range []error{rpctypes.ErrAuthFailed, rpctypes.ErrPermissionDenied, rpctypes.ErrUserEmpty,
		rpctypes.ErrUserNotFound, rpctypes.ErrRoleNotFound} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// refusedAuth wraps err in ErrAuth when it is etcd refusing the
// credentials or permissions.
func refusedAuth(err error) error {
	if authRefused(err) {
		return fmt.Errorf("%w: %w", ErrAuth, err)
	}
	return err
}

// endpointNames is the endpoints as an error names them.
func endpointNames(eps []string) string {
	names := make([]string, len(eps))
	for i, ep := range eps {
		names[i] = endpointName(ep)
	}
	return strings.Join(names, ",")
}
