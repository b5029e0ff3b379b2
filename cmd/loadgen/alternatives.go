package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/experiment/alternatives"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/redact"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/resultdir"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/vcs"
	"github.com/snowlab/snowlab/lab/replica"
)

// runAlternatives is `loadgen alternatives`: the ID schemes the design
// documents reject, measured on PostgreSQL beside snowlab.
func runAlternatives(args, command []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen alternatives", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := fs.String("pg", "", "PostgreSQL connection string (postgres://user@host:port/db); scripts/pg.sh start prints one for a throwaway server, make alternatives runs it all")
	clients := fs.String("clients", clientsText(alternatives.DefaultClients), fmt.Sprintf("comma list of client counts (simulated nodes), each 1 to %d", alternatives.MaxClients))
	duration := fs.Duration("duration", alternatives.DefaultDuration, fmt.Sprintf("length of each run, one scheme at one client count (more than 0, at most %v)", alternatives.MaxDuration))
	demand := fs.Float64("demand", alternatives.DefaultDemand, fmt.Sprintf("the fleet's IDs/s, shared by the clients (more than 0, at most %g; -1: as fast as they go)", float64(alternatives.MaxDemand)))
	maxIDs := fs.Int("max-ids", alternatives.DefaultMaxIDs, fmt.Sprintf("most IDs recorded per run (1 to %d)", alternatives.MaxIDs))
	skew := fs.Duration("skew", alternatives.DefaultSkew, fmt.Sprintf("snowlab clients' clock offsets spread over ±skew (0 to %v)", alternatives.MaxSkew))
	schemes := fs.String("schemes", "all", "comma list of ticket, sequence/cache-N, series/N, block/N, block/N+double, stride, snowlab, snowidd, snowidd/N (or all)")
	snowiddURL := fs.String("snowidd", "", "base URL (http://HOST:PORT) of a running snowidd replica for the snowidd schemes")
	snowiddBin := fs.String("snowidd-bin", "", "a snowidd binary to start on loopback for the run's snowidd schemes (make snowidd builds bin/snowidd); "+
		"without this or -snowidd those schemes are skipped, and the report says so")
	control := fs.String("pg-control", "", "script that crashes and restarts the server (scripts/pg.sh, for a server it started): runs the crash experiment")
	crashClients := fs.Int("crash-clients", alternatives.DefaultCrashClients, fmt.Sprintf("crash experiment: clients on the row (1 to %d)", alternatives.MaxClients))
	crashAfter := fs.Duration("crash-after", alternatives.DefaultCrashAfter, fmt.Sprintf("crash experiment: how long the clients run before the stop (more than 0, at most %v)", alternatives.MaxDuration))
	fsyncSec := fs.Int("fsync-seconds", alternatives.DefaultFsyncSeconds, fmt.Sprintf("pg_test_fsync seconds per test on the server's data folder (-1: not measured, at most %d)", alternatives.MaxFsyncSecond))
	out := fs.String("out", resultdir.DefaultOut(), "folder for the result files (JSON, Markdown, SVG charts, HTML); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress lines")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loadgen alternatives: "+format+"\n", a...)
		return exitUsage
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if *dsn == "" {
		return fail("-pg DSN is required (scripts/pg.sh start prints one, or make alternatives runs it all)")
	}
	counts, err := parseClients(*clients)
	if err != nil {
		return fail("-clients: %v", err)
	}
	sc, err := alternatives.ParseSchemes(*schemes)
	if err != nil {
		return fail("-schemes: %v", err)
	}
	switch {
	case *snowiddURL != "" && *snowiddBin != "":
		return fail("-snowidd %s and -snowidd-bin %s: name a running replica or a binary to start, not both", *snowiddURL, *snowiddBin)
	case *snowiddURL != "":
		if err := (alternatives.Options{Snowidd: *snowiddURL}).Validate(); err != nil {
			return fail("-snowidd: %v", err)
		}
	case *snowiddBin != "":
		if err := replica.CheckBinary(*snowiddBin); err != nil {
			return fail("-snowidd-bin %v", err)
		}
	}
	switch {
	case *duration <= 0 || *duration > alternatives.MaxDuration:
		return fail("-duration %v: want more than 0, at most %v", *duration, alternatives.MaxDuration)
	case *demand != -1 && (*demand <= 0 || *demand > alternatives.MaxDemand):
		return fail("-demand %g: want more than 0, at most %g, or -1", *demand, float64(alternatives.MaxDemand))
	case *maxIDs < 1 || *maxIDs > alternatives.MaxIDs:
		return fail("-max-ids %d: want 1 to %d", *maxIDs, alternatives.MaxIDs)
	case *skew < 0 || *skew > alternatives.MaxSkew:
		return fail("-skew %v: want 0 to %v", *skew, alternatives.MaxSkew)
	case *crashClients < 1 || *crashClients > alternatives.MaxClients:
		return fail("-crash-clients %d: want 1 to %d", *crashClients, alternatives.MaxClients)
	case *crashAfter <= 0 || *crashAfter > alternatives.MaxDuration:
		return fail("-crash-after %v: want more than 0, at most %v", *crashAfter, alternatives.MaxDuration)
	case *fsyncSec == 0 || *fsyncSec < -1 || *fsyncSec > alternatives.MaxFsyncSecond:
		return fail("-fsync-seconds %d: want 1 to %d, or -1", *fsyncSec, alternatives.MaxFsyncSecond)
	}
	o := alternatives.Options{DSN: *dsn, Clients: counts, Duration: *duration, Demand: *demand, MaxIDs: *maxIDs,
		Skew: *skew, Schemes: sc, CrashClients: *crashClients, CrashAfter: *crashAfter, FsyncSeconds: *fsyncSec,
		Command: command}
	if *skew == 0 {
		o.Skew = -1 // no offsets (Options' zero is the default)
	}
	if *control != "" {
		if _, err := os.Stat(*control); err != nil {
			return fail("-pg-control: %v", err)
		}
		o.Control = alternatives.ScriptControl{Script: *control, DSN: *dsn}
	}
	o.Commit, o.Dirty = vcs.Commit()
	if !*quiet {
		o.Progress = func(msg string) { fmt.Fprintln(stderr, redact.String(msg)) }
	}
	var rep *replica.Replica
	if callsSnowidd(sc) {
		switch {
		case *snowiddBin != "":
			if rep, err = replica.Start(*snowiddBin, replica.Config{}); err != nil {
				fmt.Fprintf(stderr, "loadgen alternatives: %v\n", err)
				return exitFailure
			}
			o.Snowidd = rep.URL
			o.SnowiddNote = fmt.Sprintf("%s started for the run on loopback, static node id %d, every core", *snowiddBin, replica.Node)
		case *snowiddURL != "":
			o.Snowidd, o.SnowiddNote = *snowiddURL, "a running replica (-snowidd)"
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, runErr := alternatives.Execute(ctx, o)
	if rep != nil {
		runErr = errors.Join(runErr, rep.Stop())
	}
	if res == nil {
		fmt.Fprintf(stderr, "loadgen alternatives: %s\n", redact.String(runErr.Error()))
		return exitFailure
	}
	return finishExperiment("alternatives", stdout, stderr, func(w io.Writer) error { return alternatives.WriteTable(w, res) },
		*noWrite, func() ([]string, error) { return alternatives.WriteFiles(*out, res) }, runErr)
}

// callsSnowidd reports whether any of the schemes calls a snowidd
// replica, so that one is started only for a run that uses it.
func callsSnowidd(schemes []alternatives.Scheme) bool {
	for _, s := range schemes {
		if s.Kind == alternatives.Snowidd {
			return true
		}
	}
	return false
}

func clientsText(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// parseClients reads a comma list of client counts, each in range and
// none twice.
func parseClients(spec string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > alternatives.MaxClients {
			return nil, fmt.Errorf("client count %q: want 1 to %d", strings.TrimSpace(part), alternatives.MaxClients)
		}
		for _, have := range out {
			if have == n {
				return nil, fmt.Errorf("client count %d listed twice", n)
			}
		}
		out = append(out, n)
	}
	return out, nil
}
