package nodeid

import (
	"context"
	"fmt"
	"strings"
)

// Opener builds a Store from the part of a lease spec after "scheme:".
type Opener func(rest string) (Store, error)

// OpenStore builds the Store a lease spec names: "dir:/var/lib/app/ids" is
// Dir, and any other "scheme:rest" is looked up in extra, which is how a
// program that links the etcdlease module adds "etcd:host:port/prefix"
// without this package importing the etcd client.
func OpenStore(spec string, extra map[string]Opener) (Store, error) {
	scheme, rest, ok := strings.Cut(spec, ":")
	if !ok || rest == "" {
		return nil, fmt.Errorf("nodeid: lease %q: want scheme:location, e.g. dir:/var/lib/app/nodeids", spec)
	}
	if scheme == "dir" {
		return Dir(rest), nil
	}
	if open, ok := extra[scheme]; ok {
		return open(rest)
	}
	if scheme == "etcd" {
		return nil, fmt.Errorf("nodeid: lease %q: etcd leases live in the github.com/snowlab/snowlab/etcdlease module; this program was built without it", spec)
	}
	return nil, fmt.Errorf("nodeid: lease %q: unknown scheme %q (want dir or etcd)", spec, scheme)
}

// AcquireSpec opens the store spec names (see OpenStore) and acquires a
// lease on it, giving up after ctx's deadline: the one call a command line
// needs for a -lease flag.
func AcquireSpec(ctx context.Context, spec string, extra map[string]Opener, opts Options) (*Lease, error) {
	store, err := OpenStore(spec, extra)
	if err != nil {
		return nil, err
	}
	return Acquire(ctx, store, opts)
}
