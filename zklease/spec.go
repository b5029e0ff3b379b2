package zklease

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/nodeid"
)

// Opener returns the nodeid.Opener for "zk:" lease specs:
// "zk:HOST:PORT[,HOST:PORT...][/PATH]", as scripts/zk.sh prints the
// servers: zk:127.0.0.1:2181,127.0.0.1:2182/myapp. The store is New's
// (DefaultPath when there is no /PATH), with sessions of sessionTimeout.
// Pass it to nodeid.OpenStore as extra["zk"]. It does not reach
// ZooKeeper: its error is a spec that does not parse, and a ZooKeeper that
// is not there is the store's Acquire's error (ErrUnreachable, within
// ReachTimeout). The session stays open for the life of the process.
func Opener(sessionTimeout time.Duration) nodeid.Opener {
	return nodeid.OpenerFunc(func(rest string) (nodeid.Store, error) {
		servers, root, err := parseSpec(rest)
		if err != nil {
			return nil, err
		}
		return New(servers, root, sessionTimeout)
	})
}

// parseSpec splits "HOST:PORT[,HOST:PORT...][/PATH]" into the servers and
// the root path. Its errors name the part at fault, not the whole spec,
// which the caller names.
func parseSpec(rest string) (servers []string, root string, err error) {
	const want = "want HOST:PORT, comma-separated, then /PATH"
	hosts, p, hasPath := strings.Cut(rest, "/")
	for i, h := range strings.Split(hosts, ",") {
		h = strings.TrimSpace(h)
		if err := checkHostPort(h); err != nil {
			return nil, "", fmt.Errorf("zklease: server %d: %w (%s)", i+1, err, want)
		}
		servers = append(servers, h)
	}
	if !hasPath {
		return servers, DefaultPath, nil
	}
	root = "/" + strings.TrimRight(p, "/")
	if root == "/" {
		return servers, DefaultPath, nil
	}
	if err := checkPath(root); err != nil {
		return nil, "", fmt.Errorf("zklease: %w", err)
	}
	return servers, root, nil
}

// checkHostPort accepts HOST:PORT with a host and a port number. A server
// with user information (digest credentials) is refused without being
// echoed: this store does not take credentials, and an error line is no
// place for a password. Other refusals describe the server as
// nodeid.Redact does.
func checkHostPort(hp string) error {
	if hp == "" {
		return errors.New("empty")
	}
	if strings.Contains(hp, "@") {
		return errors.New("holds user information (user:password@), which this store does not take")
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
