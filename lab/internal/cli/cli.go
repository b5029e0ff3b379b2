// Package cli is loadgen's command line: its flags, its subcommands and
// their dispatch over the lab's packages. It is internal to the lab module
// so that none of it is API; lab/cmd/loadgen's main is a call to Main,
// and its documentation says what the command does.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/suiteflags"
	"github.com/snowlab/snowlab/lab/result"
)

const (
	exitOK      = 0
	exitFailure = 1 // a correctness failure, or a gate that did not pass
	exitUsage   = 2
)

// Main runs loadgen with args (the command line without the program's
// name), writing to stdout and stderr, and returns the exit status: 0, 1
// when a run failed its checks or a step failed, 2 for bad input.
func Main(args []string, stdout, stderr io.Writer) int {
	// command is the whole command line as typed, for the result files;
	// they redact any credential in it.
	command := append([]string{"loadgen"}, args...)
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 && isHelp(args[0]) {
		cmd = "help"
	}
	switch cmd {
	case "check", "gate":
		fmt.Fprintf(stderr, "loadgen %s: removed: gate a change with loadgen ab BASE HEAD (the interleaved A/B gate) and loadgen instr (instruction counts); lab/README.md says how\n", cmd)
		return exitUsage
	case "btree", "alternatives", "peerfaults":
		fmt.Fprintf(stderr, "loadgen %s: retired; its results are in results/FINDINGS.md, and the lab that made them runs it: go run %s@%s %s\n",
			cmd, retiredAt.path, retiredAt.commit, cmd)
		return exitUsage
	case "instr":
		return instr.Main(args, stdout, stderr) // the instruction-count gate
	case "help":
		if _, err := fmt.Fprintln(stdout, usage); err != nil {
			return exitFailure
		}
		return exitOK
	}
	if x, ok := experiments[cmd]; ok {
		return runExperiment(x(), args, command, stdout, stderr)
	}
	if define, ok := commands[cmd]; ok {
		return runCommand(cmd, define, args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "loadgen: unknown command %q (run 'loadgen help' for the commands)\n", cmd)
	return exitUsage
}

// commands are the subcommands that are neither the help nor an
// experiment, by name: each defines its flags on the flag set it is given
// and returns its body, run by runCommand.
var commands = map[string]func(fs *flag.FlagSet) command{
	"ab":      abCmd,
	"compare": compareCmd,
	"export":  exportCmd,
	"history": historyCmd,
	"publish": publishCmd,
	"hog":     hogCmd,
	"list":    listCmd,
}

// command is a subcommand's body, run with the arguments left after its
// flags. Its error is said in one line after the command's name and exits
// 2 where it wraps experiment.ErrUsage (bad input), else 1; a usageLine
// is said as it is.
type command func(args []string, stdout, stderr io.Writer) error

// usageLine is a command's usage, the error for a wrong count of
// arguments (exit 2).
type usageLine string

func (u usageLine) Error() string { return string(u) }
func (usageLine) Unwrap() error   { return experiment.ErrUsage }

// runCommand is `loadgen NAME` for one of commands: its flags, then its
// body, whose error decides the exit status.
func runCommand(name string, define func(*flag.FlagSet) command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	body := define(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	err := body(fs.Args(), stdout, stderr)
	if err == nil {
		return exitOK
	}
	if u, ok := err.(usageLine); ok {
		fmt.Fprintln(stderr, u)
	} else {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	}
	if errors.Is(err, experiment.ErrUsage) {
		return exitUsage
	}
	return exitFailure
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// parseFlags parses args into fs. It returns the exit code to stop with,
// or -1 to go on: -h prints the usage and exits 0, a bad flag is one line
// naming it and where to read the usage, as snowid reports one, and exits
// 2, never the flag package's line followed by every flag's description.
func parseFlags(fs *flag.FlagSet, args []string) int {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // the flag package's own error and usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		if usage != nil {
			usage()
		} else {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return exitOK
	case err != nil:
		fmt.Fprintf(out, "%s: %v (run '%s -h' for usage)\n", fs.Name(), err, fs.Name())
		return exitUsage
	}
	return -1
}

// usage is loadgen's one list of its subcommands (loadgen help).
const usage = `usage:
  loadgen [run] [flags]             run the suite (loadgen run -h for flags); writes
                                    results/local/, which git ignores
  loadgen ab [-pkg ./bench] BASE HEAD
                                    the throughput gate: two revisions (or two runner
                                    binaries) built and measured interleaved, CPU time
                                    per ID at G = 1, GOMAXPROCS, 2 x GOMAXPROCS; DIFFERENT /
                                    SAME / UNKNOWN per workload, and what this run could
                                    detect (planted slowdowns, the same code twice)
  loadgen instr [-target BIN] [-against BIN | -write-baseline] [-inject PCT]
                                    the instruction-count gate: single-goroutine paths
                                    counted under cachegrind, against
                                    results/baseline/instr/ or another build (make instr-gate)
  loadgen compare [-json] OLD.json NEW.json
                                    per-metric change with a noise-aware verdict
                                    (informational; it fails nothing)
  loadgen export [-format F] RUN.json
                                    a run for benchstat (gobench) or
                                    github-action-benchmark (benchmark-action,
                                    benchmark-action-costs)
  loadgen service [-snowidd bin/snowidd]
                                    a local snowidd over gRPC and Connect beside
                                    the in-process generator (loadgen service -h)
  loadgen faults [-set short|full] a fleet of replicas on etcd under faults: leader
                                    killed, quorum lost, a replica cut off, clock
                                    steps, 1,024 holders at once (loadgen faults -h)
  loadgen contention [-factor 8] [-parts oversubscription,placement]
                                    every generator at 8 x GOMAXPROCS goroutines beside
                                    a CPU hog; padded vs shared cache lines per placement
  loadgen gates [-pairs 30] [-levels 3,5,10,25]
                                    how often each regression gate (instr, ab) fails
                                    same-code pairs, quiet and beside a CPU hog, and
                                    catches planted slowdowns
  loadgen hog [-threads N] [-for D] the bounded CPU hog loadgen contention and gates start
  loadgen history [-o FILE] [-baseline FILE.json|DIR] [DIR|FILE.json ...]
                                    the history page of the results (index.html)
  loadgen publish [-to DIR] [RUN.json ...]
                                    copy runs (default: the newest in results/local)
                                    into results/, to commit, and refresh its index.html
  loadgen list                      list the subjects
  loadgen help                      this text

The experiments (service, faults, contention, gates) write
results/local/<stem>-<experiment>.*; every run checks what it measured and
exits 1 on a correctness failure. The retired ones (btree, alternatives,
peerfaults) run from the commit before they left, which each names.`

// suiteCmd is `loadgen run` (and a bare `loadgen`): the suite, over the
// subjects of -lease when set.
type suiteCmd struct {
	sf    suiteflags.Flags
	lease leaseFlags
	procs int
	cpus  string
}

func (*suiteCmd) Name() string { return "run" }

func (c *suiteCmd) Flags(fs *flag.FlagSet) {
	c.sf.Register(fs)
	c.lease.register(fs)
	fs.IntVar(&c.procs, "gomaxprocs", 0, fmt.Sprintf("run with runtime.GOMAXPROCS set to N, 1 to %d (0: leave it; the result's host records it), "+
		"so that one binary can sweep core counts", maxProcs))
	fs.StringVar(&c.cpus, "cpus", "", "run on these CPUs only, e.g. 0,1 or 0-3 (Linux; the result's host records them as affinity); "+
		"GOMAXPROCS follows their count unless -gomaxprocs is set")
}

// Run measures the suite. Ctrl-C (ctx done) returns ctx's error at once:
// Measure cannot be stopped part way, and what it still does is ended by
// loadgen's exit. A lease's release is safe under it: Release revokes the
// fence before it frees the node ids, so the generators mint no more.
func (c *suiteCmd) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	if c.procs < 0 || c.procs > maxProcs {
		return nil, experiment.Usage(fmt.Errorf("-gomaxprocs %d: want 1 to %d (0: leave it)", c.procs, maxProcs))
	}
	// Before the subjects are built: sharded ones size themselves by
	// GOMAXPROCS.
	restore, err := bindCPUs(c.cpus, c.procs)
	if err != nil {
		return nil, experiment.Usage(err)
	}
	defer restore()
	all, release, err := c.lease.subjects()
	if errors.As(err, new(*storeError)) {
		return nil, err
	} else if err != nil {
		return nil, experiment.Usage(err)
	}
	defer release()
	suite, err := c.sf.Suite(all)
	if err != nil {
		return nil, experiment.Usage(err)
	}
	suite.Command, suite.Commit, suite.Dirty = env.Command, env.Commit, env.Dirty
	step, finish := env.Bar()
	suite.Progress = step
	var res *result.Run
	done := make(chan error, 1)
	go func() {
		r, err := suite.Measure()
		res = r
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	finish()
	if err != nil {
		return nil, err
	}
	if w := res.Host.CPUWarning; w != "" {
		fmt.Fprintln(env.Stderr, "loadgen run:", w) // and in the result: host.cpu_warning
	}
	return &experiment.Output{Suite: res, Table: func(w io.Writer) error {
		if err := report.WriteTable(w, res); err != nil {
			return err
		}
		if cuts := lab.Cuts(res); len(cuts) > 0 {
			fmt.Fprintln(w)
			for _, c := range cuts {
				fmt.Fprintln(w, c)
			}
		}
		return nil
	}}, nil
}

// listCmd is `loadgen list`: the subjects. It fails when stdout cannot be
// written (a full disk, a closed pipe), so that a script never reads a
// short list as the whole one.
func listCmd(*flag.FlagSet) command {
	return func(_ []string, stdout, _ io.Writer) error { return suiteflags.WriteList(stdout) }
}
