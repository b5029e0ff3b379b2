package etcdlease

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/nodeid"
)

// Opener returns the nodeid.Opener for "etcd:" lease specs:
// "etcd:ENDPOINT[,ENDPOINT...][/PREFIX]", each ENDPOINT HOST:PORT,
// http://HOST:PORT or https://HOST:PORT (TLS with the system's roots), as
// scripts/etcd.sh prints it: etcd:http://127.0.0.1:2379/myapp. The store
// is Dial's, and its leases last ttl. Pass it to nodeid.OpenStore as
// extra["etcd"]. It does not reach etcd: its error is a spec that does not
// parse, and an etcd that is not there is the store's Acquire's error
// (ErrUnreachable, within ReachTimeout). The connection stays open for the
// life of the process. A secured etcd takes OpenerWith or Flags.Opener.
func Opener(ttl time.Duration) nodeid.Opener {
	return nodeid.OpenerFunc(func(rest string) (nodeid.Store, error) {
		eps, prefix, err := parseSpec(rest)
		if err != nil {
			return nil, err
		}
		st, _, err := Dial(eps, prefix, ttl)
		return st, err
	})
}

// parseSpec splits "ENDPOINT[,ENDPOINT...][/PREFIX]" into its endpoints and
// the key prefix ("/PREFIX", DefaultPrefix when there is none). Its errors
// name the part at fault, not the whole spec, which the caller names.
func parseSpec(rest string) (eps []string, prefix string, err error) {
	const want = "want HOST:PORT, http://HOST:PORT or https://HOST:PORT, comma-separated, then /PREFIX"
	s := rest
	for {
		scheme := ""
		if i := strings.Index(s, "://"); i >= 0 && i < strings.IndexAny(s+"/", ",/") {
			scheme, s = s[:i], s[i+3:]
			if scheme != "http" && scheme != "https" {
				if strings.Trim(strings.ToLower(scheme), "abcdefghijklmnopqrstuvwxyz") != "" {
					// Not a scheme at all: what is before "://" may hold a password.
					return nil, "", fmt.Errorf("etcdlease: endpoint %d: what comes before :// is not a scheme (%s)", len(eps)+1, want)
				}
				return nil, "", fmt.Errorf("etcdlease: scheme %q (%s)", scheme+"://", want)
			}
		}
		end := strings.IndexAny(s, ",/")
		if end < 0 {
			end = len(s)
		}
		host := strings.TrimSpace(s[:end])
		if err := checkHostPort(host); err != nil {
			return nil, "", fmt.Errorf("etcdlease: endpoint %d: %w (%s)", len(eps)+1, err, want)
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

// checkHostPort accepts HOST:PORT with a host and a port number. An
// endpoint with user information is refused without being echoed: etcd
// takes credentials apart from its endpoints, and an error line is no
// place for a password. Other refusals describe the endpoint as
// nodeid.Redact does (user:password without an '@' is masked too).
func checkHostPort(hp string) error {
	if hp == "" {
		return errors.New("empty")
	}
	if strings.Contains(hp, "@") {
		return errors.New("holds user information (user:password@), which etcd does not take there")
	}
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT", nodeid.Redact(hp))
	}
	if host == "" {
		return fmt.Errorf("%q names no host", nodeid.Redact(hp))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: the port is not a number in 1..65535", nodeid.Redact(hp))
	}
	return nil
}
