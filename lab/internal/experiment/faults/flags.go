package faults

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxClients bounds -clients.
const maxClients = 64

// flags are the experiment's flags as typed (loadgen faults).
type flags struct {
	set, names, snowidd, etcd, holders string
	clients                            int
	list                               bool
}

// register defines the experiment's flags in fs.
func (f *flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.set, "set", "full", "scenario set: short (CI's, under 3 minutes on 2 cores) or full")
	fs.StringVar(&f.names, "scenarios", "", "comma list of scenarios to run instead of a set (loadgen faults -list names them)")
	fs.StringVar(&f.snowidd, "snowidd", filepath.Join("bin", "snowidd-faults"), "the replica binary; a fault-injection build (make snowidd-faults) for the clock scenario, which skips without one")
	fs.StringVar(&f.etcd, "etcd", "etcd", "the etcd binary (apt-get install etcd-server)")
	fs.StringVar(&f.holders, "holders", filepath.Join("bin", "etcdholders"), "etcdholders, for the fleet-start scenarios (make etcdholders)")
	fs.IntVar(&f.clients, "clients", defaultClients, fmt.Sprintf("client goroutines calling the fleet, 1 to %d", maxClients))
	fs.BoolVar(&f.list, "list", false, "list the scenarios and exit")
}

// options checks the flags a run needs before anything starts; execute
// refuses the rest (errOptions). A -holders that is not there leaves
// Holders empty: the fleet-start scenarios say they skipped, and why.
func (f flags) Options() (options, error) {
	if f.clients < 1 || f.clients > maxClients {
		return options{}, fmt.Errorf("-clients %d: want 1 to %d", f.clients, maxClients)
	}
	o := options{Snowidd: f.snowidd, Etcd: f.etcd, Holders: f.holders, Set: f.set, Clients: f.clients}
	if f.names != "" {
		o.Scenarios = strings.Split(f.names, ",")
	}
	if _, err := os.Stat(f.holders); err != nil {
		o.Holders = ""
	}
	return o, nil
}

// writeList writes a line per scenario, its name and title, marking
// those of the short set.
func writeList(w io.Writer) error {
	for _, s := range scenarios() {
		short := ""
		if s.Short {
			short = " (short set)"
		}
		if _, err := fmt.Fprintf(w, "%-22s %s%s\n", s.Name, s.Title, short); err != nil {
			return err
		}
	}
	return nil
}
