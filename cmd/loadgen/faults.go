package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/experiment/faults"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/resultdir"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/vcs"
)

// runFaults is `loadgen faults`: a fleet of snowidd replicas on etcd put
// through the faults that take ID fleets down, every ID checked.
func runFaults(args, command []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen faults", flag.ContinueOnError)
	fs.SetOutput(stderr)
	set := fs.String("set", "full", "scenario set: short (CI's, under 3 minutes on 2 cores) or full")
	names := fs.String("scenarios", "", "comma list of scenarios to run instead of a set (loadgen faults -list names them)")
	snowidd := fs.String("snowidd", filepath.Join("bin", "snowidd-faults"), "the replica binary; a fault-injection build (make snowidd-faults) for the clock scenario, which skips without one")
	etcd := fs.String("etcd", "etcd", "the etcd binary (apt-get install etcd-server)")
	holders := fs.String("holders", filepath.Join("bin", "etcdholders"), "etcdholders, for the fleet-start scenarios (make etcdholders)")
	clients := fs.Int("clients", faults.DefaultClients, "client goroutines calling the fleet, 1 to 64")
	list := fs.Bool("list", false, "list the scenarios and exit")
	out := fs.String("out", resultdir.DefaultOut(), "folder for the result files (JSON, Markdown, HTML); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress lines")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loadgen faults: "+format+"\n", a...)
		return exitUsage
	}
	if *list {
		for _, s := range faults.Scenarios() {
			short := ""
			if s.Short {
				short = " (short set)"
			}
			fmt.Fprintf(stdout, "%-22s %s%s\n", s.Name, s.Title, short)
		}
		return exitOK
	}
	switch {
	case fs.NArg() > 0:
		return fail("unexpected argument %q", fs.Arg(0))
	case *clients < 1 || *clients > 64:
		return fail("-clients %d: want 1 to 64", *clients)
	}
	o := faults.Options{Snowidd: *snowidd, Etcd: *etcd, Holders: *holders, Set: *set, Clients: *clients, Command: command}
	if *names != "" {
		o.Scenarios = strings.Split(*names, ",")
	}
	if _, err := os.Stat(*holders); err != nil {
		o.Holders = "" // the fleet-start scenarios say they skipped, and why
	}
	o.Commit, o.Dirty = vcs.Commit()
	if !*quiet {
		o.Progress = func(msg string) { fmt.Fprintln(stderr, msg) }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := faults.Execute(ctx, o)
	if errors.Is(err, faults.ErrOptions) {
		return fail("%s", strings.TrimPrefix(err.Error(), faults.ErrOptions.Error()+": "))
	}
	if res == nil {
		fmt.Fprintf(stderr, "loadgen faults: %v\n", err)
		return exitFailure
	}
	runErr := err
	if runErr == nil && len(res.Failures) > 0 {
		runErr = fmt.Errorf("%d failure(s): %s", len(res.Failures), strings.Join(res.Failures, "; "))
	}
	return finishExperiment("faults", stdout, stderr, func(w io.Writer) error { return faults.WriteTable(w, res) },
		*noWrite, func() ([]string, error) { return faults.WriteFiles(*out, res) }, runErr)
}
