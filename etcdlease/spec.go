package etcdlease

import (
	"fmt"
	"strings"
	"time"

	"github.com/snowlab/snowlab/nodeid"
)

// Opener returns the nodeid.Opener for "etcd:" lease specs:
// "etcd:HOST:PORT[,HOST:PORT...][/PREFIX]", with leases of ttl. Pass it to
// nodeid.OpenStore as extra["etcd"]. The connection stays open for the life
// of the process.
func Opener(ttl time.Duration) nodeid.Opener {
	return func(rest string) (nodeid.Store, error) {
		hosts, prefix, _ := strings.Cut(rest, "/")
		if hosts == "" {
			return nil, fmt.Errorf("etcdlease: %q names no endpoint (want HOST:PORT[,HOST:PORT...][/PREFIX])", rest)
		}
		if prefix = strings.TrimRight(prefix, "/"); prefix == "" {
			prefix = DefaultPrefix
		} else {
			prefix = "/" + prefix
		}
		var eps []string
		for _, h := range strings.Split(hosts, ",") {
			if h = strings.TrimSpace(h); h != "" {
				eps = append(eps, h)
			}
		}
		store, _, err := Dial(eps, prefix, ttl)
		return store, err
	}
}
