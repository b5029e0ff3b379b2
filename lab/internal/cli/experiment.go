package cli

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

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/experiment/contention"
	"github.com/snowlab/snowlab/lab/internal/experiment/faults"
	"github.com/snowlab/snowlab/lab/internal/experiment/service"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/vcs"
)

// experiments are the subcommands that run one of the lab's experiments,
// by name.
var experiments = map[string]func() experiment.Experiment{
	"run":        func() experiment.Experiment { return &suiteCmd{} },
	"faults":     faults.New,
	"service":    service.New,
	"contention": contention.New,
	"gates":      func() experiment.Experiment { return &gatesCmd{} },
}

// retiredAt is where the retired experiments (btree, alternatives,
// peerfaults) still run: the lab module at the last commit that held them.
// Their findings stand in results/FINDINGS.md and their runs in results/;
// they answered the design's claims once, and were retired so that the lab
// keeps what it measures again and again (issue 39: 6,773 lines of code
// and 1,672 of tests left, and SQLite with them).
var retiredAt = struct{ path, commit string }{
	path:   "github.com/snowlab/snowlab/lab/cmd/loadgen",
	commit: "d58958c3f8f5",
}

// runExperiment is `loadgen NAME` for an experiment: the prologue every
// experiment shares (its flags with -out, -no-write and -q, no stray
// argument, the commit, Ctrl-C), its Run, then its table, its files and
// the exit status: 2 for bad input, 1 for a run that failed, even in
// part.
func runExperiment(x experiment.Experiment, args, command []string, stdout, stderr io.Writer) int {
	name := "loadgen " + x.Name()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	x.Flags(fs)
	out := fs.String("out", resultdir.DefaultOut(), "folder for the result files (JSON, Markdown, HTML, and the SVG charts where the experiment draws any); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress output")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", name, fs.Arg(0))
		return exitUsage
	}
	env := experiment.Env{Command: command, Quiet: *quiet, Stdout: stdout, Stderr: stderr,
		BindCPUs: func(spec string) (func(), error) { return bindCPUs(spec, 0) },
		Bar: func() (func(i, n int, what string), func()) {
			bar := newProgress(stderr, *quiet, 0)
			return bar.step, bar.finish
		}}
	env.Commit, env.Dirty = vcs.Commit()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := x.Run(ctx, env)
	switch {
	case errors.Is(err, experiment.ErrUsage):
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitUsage
	case res == nil && err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitFailure
	case res == nil:
		return exitOK
	}
	return finishExperiment(name, *out, *noWrite, res, err, stdout, stderr)
}

// finishExperiment ends an experiment's subcommand: the table on stdout,
// the result files unless noWrite (a suite run's with the history page of
// their folder refreshed beside them), and the run's own error last (a
// suite run's correctness failures), so that a partial run is still shown
// and kept.
func finishExperiment(name, dir string, noWrite bool, res *experiment.Output, runErr error, stdout, stderr io.Writer) int {
	if err := res.Table(stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitFailure
	}
	files := res.Files
	if run := res.Suite; run != nil {
		files = func(dir string) ([]string, error) { return report.WriteFiles(dir, run) }
		if len(run.Failures) > 0 && runErr == nil {
			runErr = fmt.Errorf("correctness failures:\n  FAIL %s", strings.Join(run.Failures, "\n  FAIL "))
		}
	}
	if !noWrite {
		paths, err := files(dir)
		if err != nil {
			fmt.Fprintf(stderr, "%s: writing results: %v\n", name, err)
			return exitFailure
		}
		printWrote(stdout, paths)
		if res.Suite != nil {
			// The history page follows the folder: a result it cannot
			// read is said, and costs the run nothing.
			index := filepath.Join(dir, report.IndexName)
			base, _ := resultdir.ReadBaseline(filepath.FromSlash(resultdir.Baseline)) // none here: every gated ratio leads
			if h, err := (historyPage{index, resultdir.HistorySources(dir), base}).write(); err != nil {
				fmt.Fprintf(stderr, "%s: the history page was not refreshed: %v\n", name, err)
			} else {
				fmt.Fprintf(stdout, "wrote %s (%d runs)\n", index, len(h.Runs))
			}
		}
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, runErr)
		return exitFailure
	}
	return exitOK
}

// printWrote lists the files a run wrote, after a blank line.
func printWrote(stdout io.Writer, paths []string) {
	fmt.Fprintln(stdout)
	for _, p := range paths {
		fmt.Fprintln(stdout, "wrote", p)
	}
}
