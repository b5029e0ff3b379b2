package faults

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/experiment"
)

// New is `loadgen faults`, run by lab/internal/cli: a fleet of snowidd
// replicas on etcd put through the faults that take ID fleets down, every
// ID checked.
func New() experiment.Experiment { return &command{} }

// command holds the experiment's flags as typed: the options, and
// -scenarios and -list.
type command struct {
	o     options
	names string
	list  bool
}

// maxClients bounds -clients.
const maxClients = 64

func (*command) Name() string { return "faults" }

func (c *command) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.o.Set, "set", "full", "scenario set: short (CI's, under 3 minutes on 2 cores) or full")
	fs.StringVar(&c.names, "scenarios", "", "comma list of scenarios to run instead of a set (loadgen faults -list names them)")
	fs.StringVar(&c.o.Snowidd, "snowidd", filepath.Join("bin", "snowidd-faults"), "the replica binary; a fault-injection build (make snowidd-faults) for the clock scenario, which skips without one")
	fs.StringVar(&c.o.Etcd, "etcd", "etcd", "the etcd binary (apt-get install etcd-server)")
	fs.StringVar(&c.o.Holders, "holders", filepath.Join("bin", "etcdholders"), "etcdholders, for the fleet-start scenarios (make etcdholders)")
	fs.IntVar(&c.o.Clients, "clients", defaultClients, fmt.Sprintf("client goroutines calling the fleet, 1 to %d", maxClients))
	fs.BoolVar(&c.list, "list", false, "list the scenarios and exit")
}

// Run checks the flags a run needs before anything starts (execute
// refuses the rest, errOptions) and runs. A -holders that is not there
// leaves Holders empty: the fleet-start scenarios say they skipped, and
// why.
func (c *command) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	if c.list {
		return nil, writeList(env.Stdout)
	}
	o := c.o
	if o.Clients < 1 || o.Clients > maxClients {
		return nil, experiment.Usage(fmt.Errorf("-clients %d: want 1 to %d", o.Clients, maxClients))
	}
	if c.names != "" {
		o.Scenarios = strings.Split(c.names, ",")
	}
	if _, err := os.Stat(o.Holders); err != nil {
		o.Holders = ""
	}
	o.Command, o.Commit, o.Dirty, o.Progress = env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := execute(ctx, o)
	if errors.Is(err, errOptions) {
		return nil, experiment.Usage(errors.New(strings.TrimPrefix(err.Error(), errOptions.Error()+": ")))
	}
	if res == nil {
		return nil, err
	}
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("%d failure(s): %s", len(res.Failures), strings.Join(res.Failures, "; "))
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return writeTable(w, res) },
		Files: func(dir string) ([]string, error) { return writeFiles(dir, res) },
	}, err
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
