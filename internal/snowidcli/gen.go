package snowidcli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/nodeid"
)

// genBatch is how many IDs gen reserves per NextIDs call.
const genBatch = 4096

func runGen(args []string, stdout, stderr io.Writer, stores map[string]nodeid.Opener) int {
	fs := newFlagSet("gen", "[-node N | -lease SPEC] [-n K] [-policy strict|monotonic] [-format dec|base32|json] [layout flags]", stderr)
	node := fs.Int("node", 0, "mint for node `N`, 0..max node of the layout (1023 by default); without it (and -lease) node 0, said on stderr")
	n := fs.Int("n", 1, "mint `K` IDs")
	policyName := fs.String("policy", "strict", "`policy` when the clock gives no fresh tick: strict or monotonic")
	format := fs.String("format", "dec", "output `format`: dec, base32 or json (the objects of decode -json)")
	leaseSpec := fs.String("lease", "", "take the node id from a lease instead of -node (not with it): dir:`PATH` (a lock folder shared by the processes of one host), or etcd:[http://]HOST:PORT/PREFIX in the etcd-enabled build (etcdlease/cmd/snowid)")
	lf := AddLayoutFlags(fs)
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}

	l, err := lf.Layout()
	if err != nil {
		return fail(stderr, "gen %v", err)
	}
	if *n < 1 {
		return fail(stderr, "gen -n %d: want at least 1", *n)
	}
	policy, ok := ParsePolicy(*policyName)
	if !ok {
		return fail(stderr, "gen -policy %q: want strict or monotonic", *policyName)
	}
	var write func(w *bufio.Writer, id snowlab.ID) error
	switch *format {
	case "dec":
		write = func(w *bufio.Writer, id snowlab.ID) error {
			_, err := fmt.Fprintln(w, id)
			return err
		}
	case "base32":
		write = func(w *bufio.Writer, id snowlab.ID) error {
			_, err := fmt.Fprintln(w, id.Base32())
			return err
		}
	case "json":
		write = func(w *bufio.Writer, id snowlab.ID) error {
			return json.NewEncoder(w).Encode(describe(l, id))
		}
	default:
		return fail(stderr, "gen -format %q: want dec, base32 or json", *format)
	}

	nodeSet, leaseSet := false, false
	fs.Visit(func(f *flag.Flag) {
		nodeSet = nodeSet || f.Name == "node"
		leaseSet = leaseSet || f.Name == "lease"
	})
	if nodeSet && leaseSet {
		return fail(stderr, "gen -node %d -lease %q: give one or the other: -lease takes its node id from the lease", *node, nodeid.Redact(*leaseSpec))
	}
	cfg := snowlab.Config{Node: *node, Layout: l, Policy: policy}
	if leaseSet {
		// An empty -lease is a spec like any other: refused, not read as
		// no lease (which would mint on node 0).
		store, err := nodeid.OpenStore(*leaseSpec, stores)
		if err != nil {
			return fail(stderr, "gen -lease: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		lease, err := nodeid.Acquire(ctx, store, nodeid.Options{Layout: l})
		cancel()
		if err != nil {
			// The spec is right: the store is down, or full.
			fmt.Fprintf(stderr, "snowid: gen -lease %q: %v\n", nodeid.Redact(*leaseSpec), err)
			return exitFail
		}
		defer lease.Release(context.Background())
		cfg = lease.Config(cfg)
		*node = cfg.Node
	}
	g, err := atomicgen.New(cfg)
	if err != nil {
		if errors.Is(err, snowlab.ErrInvalidNode) {
			return fail(stderr, "gen -node %d: %v", *node, err)
		}
		return fail(stderr, "gen: %v", err)
	}

	out := bufio.NewWriter(stdout)
	buf := make([]snowlab.ID, min(*n, genBatch))
	for left := *n; left > 0; {
		got, genErr := g.NextIDs(buf[:min(left, len(buf))])
		for _, id := range buf[:got] {
			if err := write(out, id); err != nil {
				return writeFailed(stderr, err)
			}
		}
		if genErr != nil {
			if err := out.Flush(); err != nil {
				return writeFailed(stderr, err)
			}
			if errors.Is(genErr, snowlab.ErrOverflow) {
				// The clock is outside the layout's window: the layout
				// flags are at fault.
				return fail(stderr, "gen %s: %v", lf.setFlags(), genErr)
			}
			fmt.Fprintf(stderr, "snowid: gen: %d of %d IDs minted: %v\n", *n-left+got, *n, genErr)
			return exitFail
		}
		left -= got
	}
	if err := out.Flush(); err != nil {
		return writeFailed(stderr, err)
	}
	// Say which node minted, unless the caller chose it.
	switch {
	case leaseSet:
		fmt.Fprintf(stderr, "snowid: gen: node %d, leased from %s\n", *node, nodeid.Redact(*leaseSpec))
	case !nodeSet:
		fmt.Fprintf(stderr, "snowid: gen: node %d (the default: -node N picks one, -lease dir:PATH leases a free one)\n", *node)
	}
	return exitOK
}
