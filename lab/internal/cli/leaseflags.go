package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/lab/internal/suiteflags"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// etcdPasswordVar holds the etcd user's password for -lease etcd: when
// -etcd-password-file does not: loadgen's own variable, not etcdctl's
// ETCDCTL_PASSWORD, so that a shell set up for etcdctl as another user
// does not lend loadgen that user.
const etcdPasswordVar = "LOADGEN_ETCD_PASSWORD"

// leaseTTL is the TTL of a -lease on a store whose holds expire (etcd,
// PostgreSQL, Kubernetes; ZooKeeper's session timeout): a lab run that
// dies frees its node ids this long after.
const leaseTTL = 10 * time.Second

// storeError is the error for a spec that is right on a store that
// failed (or has no free ids): a failure, not a usage error.
type storeError struct {
	Spec string
	Err  error
}

// Error names the spec as nodeid.Redact describes it, and puts that
// description in place of the location wherever the store's message
// quotes it whole (pglease's and etcdlease's do not; another store might).
func (e *storeError) Error() string {
	named := nodeid.Redact(e.Spec)
	msg := e.Err.Error()
	if scheme, rest, ok := strings.Cut(e.Spec, ":"); ok && rest != "" {
		msg = strings.ReplaceAll(msg, rest, strings.TrimPrefix(named, scheme+":"))
	}
	return fmt.Sprintf("-lease %q: %s", named, msg)
}

func (e *storeError) Unwrap() error { return e.Err }

// leaseFlags are loadgen run's -lease and -etcd-* flags as typed, read
// into the suite's subjects: snowlab's generators minting under a nodeid
// lease on GOMAXPROCS node ids.
type leaseFlags struct {
	spec string
	set  bool
	etcd *etcdlease.Flags
}

// register defines the flags in fs.
func (f *leaseFlags) register(fs *flag.FlagSet) {
	// An empty -lease is a spec like any other: refused, not read as no
	// lease; so whether it was given is recorded apart from its value.
	fs.Func("lease", "mint snowlab's generators under the nodeid lease `SPEC` names, on GOMAXPROCS node ids: "+leasespec.Help(leasespec.Stores()),
		func(s string) error { f.spec, f.set = s, true; return nil })
	f.etcd = etcdlease.NewFlags(etcdPasswordVar, os.LookupEnv)
	f.etcd.Register(fs)
}

// subjects is every subject, snowlab's generators minting under the
// lease -lease names when set; release gives the lease back. A spec that
// cannot work is an error naming it in one line; a store that fails is
// a *StoreError. Errors name the spec as nodeid.Redact describes it (as
// OpenStore's do): a spec can hold a password.
func (f *leaseFlags) subjects() (all []subject.Subject, release func(), err error) {
	if f.etcd.Given() && !strings.HasPrefix(f.spec, "etcd:") {
		return nil, nil, fmt.Errorf("the -etcd-* flags are for -lease etcd:…, not -lease %q", nodeid.Redact(f.spec))
	}
	if !f.set {
		return suiteflags.All(), func() {}, nil
	}
	store, err := nodeid.OpenStore(f.spec, leasespec.Openers(leaseTTL, f.etcd))
	if err != nil {
		// The store's message is redacted already (a spec can hold a
		// password); it unwraps to the store's error,
		// nodeid.ErrInvalidSpec among them.
		return nil, nil, fmt.Errorf("-lease: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{Count: runtime.GOMAXPROCS(0)})
	cancel()
	if err != nil {
		return nil, nil, &storeError{f.spec, err}
	}
	all = suiteflags.WithLimits(subject.OwnWith(lease.Config(snowlab.Config{})))
	return all, func() { lease.Release(context.Background()) }, nil
}
