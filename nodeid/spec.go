package nodeid

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// ErrInvalidSpec: a lease spec that can never work, whatever the state of
// its store: no scheme, a scheme this program does not know, a location
// that does not parse, a lock folder that cannot be created. A command
// reports it as a usage error instead of retrying.
var ErrInvalidSpec = errors.New("nodeid: invalid lease spec")

// Opener builds a Store from the part of a lease spec after "scheme:",
// its location. Open does not reach the store: its error means the
// location can never work (OpenStore wraps it in ErrInvalidSpec), and a
// store that is down is for the Store's Acquire to report.
//
// An Opener may also have a method SafeParam(key string) bool, saying
// which connection parameters of its locations (a URL's query keys, a
// key=value string's keys) hold no secret: OpenStore's errors then show
// their values, as pglease's Opener has them show sslmode or dbname.
// Without it every parameter's value is masked.
type Opener interface {
	Open(location string) (Store, error)
}

// OpenerFunc is a function as an Opener.
type OpenerFunc func(location string) (Store, error)

// Open returns f(location).
func (f OpenerFunc) Open(location string) (Store, error) { return f(location) }

// OpenStore builds the Store a lease spec names: "dir:/var/lib/app/ids" is
// Dir, and any other "scheme:rest" is looked up in extra, which is how a
// program that links the etcdlease or pglease module adds
// "etcd:host:port/prefix" or "pg:DSN" without this package importing
// their clients. Every error it returns
// wraps ErrInvalidSpec and names spec. It creates a dir: folder (0o755)
// when missing, so that a path that cannot be one (under a regular file,
// on a read-only file system) is this error now rather than a lease that
// never comes. Its errors name the spec as Redact describes it (showing
// the parameters its Opener's SafeParam names), never quoting it, and
// quote an Opener's error with every piece of the spec that the
// description masks masked in it too: an Opener (pgx's parser, say) may
// quote the location it was given.
func OpenStore(spec string, extra map[string]Opener) (Store, error) {
	named := redactSpec(spec, extra)
	scheme, rest, ok := strings.Cut(spec, ":")
	if !ok || scheme == "" || rest == "" {
		return nil, fmt.Errorf("%w %q: want scheme:location, e.g. dir:/var/lib/app/nodeids", ErrInvalidSpec, named)
	}
	if scheme == "dir" {
		if err := os.MkdirAll(rest, 0o755); err != nil {
			return nil, fmt.Errorf("%w %q: the lock folder cannot be created: %w", ErrInvalidSpec, named, err)
		}
		return Dir(rest), nil
	}
	if open, ok := extra[scheme]; ok {
		s, err := open.Open(rest)
		if err != nil {
			return nil, openerError(spec, extra, err)
		}
		return s, nil
	}
	switch scheme {
	case "etcd":
		return nil, fmt.Errorf("%w %q: etcd leases live in the github.com/snowlab/snowlab/etcdlease module; this program was built without it", ErrInvalidSpec, named)
	case "pg":
		return nil, fmt.Errorf("%w %q: PostgreSQL leases live in the github.com/snowlab/snowlab/pglease module; this program was built without it", ErrInvalidSpec, named)
	}
	known := []string{"dir"}
	for s := range extra {
		known = append(known, s)
	}
	slices.Sort(known[1:])
	return nil, fmt.Errorf("%w %q: unknown scheme %q (lease stores here: %s)", ErrInvalidSpec, named, scheme, strings.Join(known, ", "))
}

// AcquireSpec opens the store spec names (see OpenStore) and acquires a
// lease on it, giving up after ctx's deadline: the one call a command line
// needs for a -lease flag. An error wrapping ErrInvalidSpec is the spec's
// fault (a usage error); any other is the store's or the options'.
func AcquireSpec(ctx context.Context, spec string, extra map[string]Opener, opts Options) (*Lease, error) {
	store, err := OpenStore(spec, extra)
	if err != nil {
		return nil, err
	}
	return Acquire(ctx, store, opts)
}
