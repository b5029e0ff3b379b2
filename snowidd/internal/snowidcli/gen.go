package snowidcli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// genBatch is how many IDs gen reserves per NextIDs call.
const genBatch = 4096

// defaultMaxLead is -max-lead's default: nodeid.StaticMaxLead (100 ms),
// the most any run on a static node id (-node N, static:N) may lead the
// clock. Every run on -node N starts that far ahead of the clock, whatever
// -policy and -max-lead an earlier run on N had, so a monotonic run with
// the default lead starts at once, and a strict one waits 100 ms and a
// tick. Unbounded, -n 10000000 spanned 2.4 s of ticks, all borrowed ahead
// when printed faster than 4,096 a ms, and a rerun within that time
// printed the same IDs (TestGenRerun, on 4 IDs a tick).
const defaultMaxLead = nodeid.StaticMaxLead

// genRun is what gen's flags asked for, parsed and checked.
type genRun struct {
	layout   snowlab.Layout
	lf       *LayoutFlags
	n        int
	node     int
	nodeSet  bool
	nodeFlag string // how the node id was given: -node 3, -lease "static:3"
	lease    string // the -lease spec; "" when not given
	leaseSet bool
	policy   snowlab.Policy
	maxLead  time.Duration
	write    func(w *bufio.Writer, id snowlab.ID) error

	// preferOrdinal asks the store for node id prefer, the pod's
	// StatefulSet ordinal, first.
	preferOrdinal bool
	prefer        int
}

func runGen(args []string, stdout, stderr io.Writer, leases Leases) int {
	r, code, ok := parseGen(args, stderr, leases)
	if !ok {
		return code
	}
	// A clock outside the layout's window mints nothing: say so before
	// taking a lease for it. (The generator reads clocksrc.Default, now
	// reads time.Now: the same clock but in tests.)
	if err := windowErr(r.layout, now()); err != nil {
		return fail(stderr, "gen %s: %v", r.lf.setFlags(), err)
	}
	if !r.leaseSet {
		return genStatic(r, stdout, stderr)
	}
	code, sig := genLeased(r, stdout, stderr, leases)
	if sig != nil {
		// The lease is released: now die of the signal, as a command
		// without a lease to give back would have.
		return raise(sig)
	}
	return code
}

// genStatic mints on a node id given by hand (-node N, static:N, or the
// default 0).
func genStatic(r genRun, stdout, stderr io.Writer) int {
	cfg := snowlab.Config{Node: r.node, Layout: r.layout, Policy: r.policy, MaxLead: r.maxLead}
	// No store remembers this run's last ID: the fence starts it past
	// whatever an earlier run on the node id can have stamped.
	cfg, err := nodeid.StaticConfig(cfg, 1)
	var g *atomicgen.Generator
	if err == nil {
		g, err = atomicgen.New(cfg)
	}
	switch {
	case errors.Is(err, snowlab.ErrInvalidNode):
		return fail(stderr, "gen %s: %v", r.nodeFlag, err)
	case err != nil:
		return fail(stderr, "gen: %v", err)
	}
	if !r.nodeSet {
		fmt.Fprintf(stderr, "snowid: gen: node %d (the default: -node N picks one, -lease dir:PATH leases a free one)\n", r.node)
	}
	if code := mintGen(g, r, stdout, stderr, nil); code != exitBrokenPipe {
		return code
	}
	return raise(syscall.SIGPIPE)
}

// genLeased mints on a node id taken from the lease store -lease names,
// and releases it when done. SIGINT or SIGTERM (stopSignals) stops it
// between batches of IDs, and so does a reader that goes away (SIGPIPE,
// a write's EPIPE): the lease is then released, so that the next holder
// does not wait for its TTL nor its reservation, and the signal is
// returned for runGen to die of.
func genLeased(r genRun, stdout, stderr io.Writer, leases Leases) (int, os.Signal) {
	sigs, unnotify := notifyStop()
	defer unnotify()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sig os.Signal
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case sig = <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	code := genOnLease(ctx, r, stdout, stderr, leases)
	cancel()
	<-watched
	if code == exitBrokenPipe && sig == nil {
		// The reader went away (snowid gen … | head): SIGPIPE, which
		// gen notifies to get the write's error instead of dying with
		// its lease, may not have reached the channel yet.
		sig = syscall.SIGPIPE
	}
	return code, sig
}

// genOnLease is genLeased's work, until ctx is cancelled.
func genOnLease(ctx context.Context, r genRun, stdout, stderr io.Writer, leases Leases) int {
	lease, code, ok := acquireGenLease(ctx, r, stderr, leases)
	if !ok {
		return code
	}
	defer lease.Release(context.Background())
	cfg := lease.Config(snowlab.Config{Layout: r.layout, Policy: r.policy, MaxLead: r.maxLead})
	g, err := atomicgen.New(cfg)
	if err != nil {
		return fail(stderr, "gen: %v", err)
	}
	// Said before the IDs, so that a reader of a long run knows the node
	// id from its start; stdout holds only IDs.
	fmt.Fprintf(stderr, "snowid: gen: node %d, leased from %s\n", cfg.Node, nodeid.Redact(r.lease))
	return mintGen(g, r, stdout, stderr, ctx.Done())
}

// parseGen reads and checks gen's flags; ok is false when gen must exit
// with code.
func parseGen(args []string, stderr io.Writer, leases Leases) (r genRun, code int, ok bool) {
	fs := newFlagSet("gen", stderr)
	node := fs.Int("node", 0, "mint for node `N`, 0..max node of the layout (1023 by default); without it (and -lease) node 0, said on stderr")
	n := fs.Int("n", 1, "mint `K` IDs")
	policyName := fs.String("policy", "strict", "`policy` when the clock gives no fresh tick: strict or monotonic")
	maxLead := fs.Duration("max-lead", defaultMaxLead, "with -policy monotonic, how far IDs may run ahead of the clock: at most "+nodeid.StaticMaxLead.String()+" on -node N, since every run on N, strict or monotonic, starts "+nodeid.StaticMaxLead.String()+" ahead of the clock, past every ID any earlier run on N can have printed (a strict one waits that long first)")
	format := fs.String("format", "dec", "output `format`: dec, base32 or json (the objects of decode -json)")
	leaseSpec := fs.String("lease", "", "take the node id from a lease `SPEC` instead of -node (not with it): "+leasespec.Help(leases.Schemes()))
	preferOrdinal := fs.Bool("prefer-ordinal", false, "with -lease, ask the store for the node id of this pod's StatefulSet ordinal first ($POD_INDEX, else the N of a hostname NAME-N): a hint, the store still decides, so two pods with one ordinal (a force-deleted pod still running, kubernetes #54368) get different node ids; refused with -node and static:N, where nothing would check it")
	lf := AddLayoutFlags(fs)
	leaseFlagsGiven := func() bool { return false }
	if leases.AddFlags != nil {
		leaseFlagsGiven = leases.AddFlags(fs)
	}
	pos, code, ok := parse(fs, args)
	if !ok {
		return r, code, false
	}
	if len(pos) > 0 {
		// An unquoted DSN's second word lands here: described, not quoted.
		return r, usageError(fs, "unexpected argument %q", nodeid.Redact(pos[0])), false
	}
	r = genRun{lf: lf, n: *n, node: *node, lease: *leaseSpec, maxLead: *maxLead, preferOrdinal: *preferOrdinal}
	var err error
	if r.layout, err = lf.Layout(); err != nil {
		return r, fail(stderr, "gen %v", err), false
	}
	if r.n < 1 {
		return r, fail(stderr, "gen -n %d: want at least 1", r.n), false
	}
	if r.policy, ok = ParsePolicy(*policyName); !ok {
		return r, fail(stderr, "gen -policy %q: want strict or monotonic", *policyName), false
	}
	if r.maxLead <= 0 {
		return r, fail(stderr, "gen -max-lead %v: want more than 0: unbounded, a later run on the node id would print this run's IDs again", r.maxLead), false
	}
	if r.write = idWriter(*format, r.layout); r.write == nil {
		return r, fail(stderr, "gen -format %q: want dec, base32 or json", *format), false
	}
	fs.Visit(func(f *flag.Flag) {
		r.nodeSet = r.nodeSet || f.Name == "node"
		r.leaseSet = r.leaseSet || f.Name == "lease"
	})
	if r.nodeSet && r.leaseSet {
		return r, fail(stderr, "gen -node %d -lease %q: give one or the other: -lease takes its node id from the lease", r.node, nodeid.Redact(r.lease)), false
	}
	if leaseFlagsGiven() && (!r.leaseSet || !strings.HasPrefix(r.lease, leases.Scheme+":")) {
		return r, fail(stderr, "gen: the -%s-* flags are for -lease %s:…, which is not given", leases.Scheme, leases.Scheme), false
	}
	r.nodeFlag = fmt.Sprintf("-node %d", r.node)
	if rest, ok := strings.CutPrefix(r.lease, "static:"); ok && r.leaseSet {
		// static:N is -node N, as snowidd's -lease static:N is; its
		// errors name it as given.
		if r.node, err = strconv.Atoi(rest); err != nil {
			return r, fail(stderr, "gen -lease %q: static:N wants a node id", r.lease), false
		}
		r.nodeSet, r.leaseSet = true, false
		r.nodeFlag = fmt.Sprintf("-lease %q", r.lease)
	}
	if !r.leaseSet && r.policy == snowlab.Monotonic && r.maxLead > nodeid.StaticMaxLead {
		return r, fail(stderr, "gen -max-lead %v: at most %v on static node id %d (-node N, static:N): every run on it starts %v ahead of the clock, and a later one would print this run's IDs again; -lease SPEC holds a node id whose reservation covers a longer lead",
			r.maxLead, nodeid.StaticMaxLead, r.node, nodeid.StaticMaxLead), false
	}
	if code, ok := r.resolveOrdinal(stderr, leases); !ok {
		return r, code, false
	}
	return r, exitOK, true
}

// resolveOrdinal reads the pod's ordinal for -prefer-ordinal, as snowidd
// does: only a hint to a lease store, so refused without one (-node N,
// static:N), where nothing would stop two pods with one ordinal from
// minting on one node id.
func (r *genRun) resolveOrdinal(stderr io.Writer, leases Leases) (int, bool) {
	if !r.preferOrdinal {
		return exitOK, true
	}
	if !r.leaseSet {
		stores := leases.Schemes()
		stores = stores[:len(stores)-1] // all but static:N
		return fail(stderr, "gen -prefer-ordinal needs -lease with a store (%s): with -node or static:N nothing stops two pods with one ordinal (a force-deleted pod still running, kubernetes #54368) from minting on one node id", leasespec.Names(stores)), false
	}
	n, err := nodeid.Ordinal("", 0, r.layout)
	if err != nil {
		return fail(stderr, "gen -prefer-ordinal: %v", err), false
	}
	r.prefer = n
	return exitOK, true
}

// idWriter writes one ID a line in format for layout l; nil for an unknown
// format.
func idWriter(format string, l snowlab.Layout) func(w *bufio.Writer, id snowlab.ID) error {
	switch format {
	case "dec":
		return func(w *bufio.Writer, id snowlab.ID) error {
			_, err := fmt.Fprintln(w, id)
			return err
		}
	case "base32":
		return func(w *bufio.Writer, id snowlab.ID) error {
			_, err := fmt.Fprintln(w, id.Base32())
			return err
		}
	case "json":
		return func(w *bufio.Writer, id snowlab.ID) error {
			return json.NewEncoder(w).Encode(describe(l, id))
		}
	}
	return nil
}

// acquireGenLease opens the store -lease names and takes a node id from it.
// An empty -lease is a spec like any other: refused, not read as no lease
// (which would mint on node 0).
func acquireGenLease(stopped context.Context, r genRun, stderr io.Writer, leases Leases) (*nodeid.Lease, int, bool) {
	store, err := nodeid.OpenStore(r.lease, leases.Stores)
	if err != nil {
		hint := "" // static:N is gen's, not a store's: OpenStore cannot name it
		if scheme, _, _ := strings.Cut(r.lease, ":"); scheme != "dir" && leases.Stores[scheme] == nil {
			hint = "; snowid also takes static:N (-node N)"
		}
		return nil, fail(stderr, "gen -lease: %v%s", err, hint), false
	}
	ctx, cancel := context.WithTimeout(stopped, 10*time.Second)
	defer cancel()
	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{Layout: r.layout, Preferred: r.preferOrdinal, Prefer: r.prefer})
	if err != nil && stopped.Err() != nil {
		return nil, exitFail, false // a signal: gen dies of it, no lease taken
	}
	if errors.Is(err, nodeid.ErrLayout) {
		// The store serves another layout: asking again cannot mend it.
		return nil, fail(stderr, "gen -lease %q, %s: %v", nodeid.Redact(r.lease), r.lf.setFlags(), err), false
	}
	if err != nil {
		// The spec is right: the store is down, or full.
		fmt.Fprintf(stderr, "snowid: gen -lease %q: %v\n", nodeid.Redact(r.lease), err)
		return nil, exitFail, false
	}
	return lease, exitOK, true
}

// exitBrokenPipe is mintGen's code for a reader gone away (EPIPE), never
// an exit code: the caller dies of SIGPIPE, silently, as a command
// writing into a closed pipe does.
const exitBrokenPipe = -1

// mintGen writes r.n IDs from g to stdout, genBatch at a time, until stop
// is closed (nil: never): then it writes the IDs minted so far, whole
// lines, and returns exitFail (the caller dies of its signal).
func mintGen(g *atomicgen.Generator, r genRun, stdout, stderr io.Writer, stop <-chan struct{}) int {
	failed := func(err error) int {
		if errors.Is(err, syscall.EPIPE) {
			return exitBrokenPipe
		}
		return writeFailed(stderr, err)
	}
	out := bufio.NewWriter(stdout)
	buf := make([]snowlab.ID, min(r.n, genBatch))
	for left := r.n; left > 0; {
		select {
		case <-stop:
			if err := out.Flush(); err != nil {
				return failed(err)
			}
			return exitFail
		default:
		}
		got, genErr := g.NextIDs(buf[:min(left, len(buf))])
		for _, id := range buf[:got] {
			if err := r.write(out, id); err != nil {
				return failed(err)
			}
		}
		if genErr != nil {
			if err := out.Flush(); err != nil {
				return failed(err)
			}
			if errors.Is(genErr, snowlab.ErrOverflow) {
				// The clock is outside the layout's window: the layout
				// flags are at fault.
				return fail(stderr, "gen %s: %v", r.lf.setFlags(), genErr)
			}
			fmt.Fprintf(stderr, "snowid: gen: %d of %d IDs minted: %v\n", r.n-left+got, r.n, genErr)
			return exitFail
		}
		left -= got
	}
	if err := out.Flush(); err != nil {
		return failed(err)
	}
	return exitOK
}
