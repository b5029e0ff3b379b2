package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/internal/check"
	"github.com/snowlab/snowlab/lab/internal/vcs"
	"github.com/snowlab/snowlab/lab/result"
)

// runCheck is `loadgen check`, the CI regression gate.
func runCheck(args, command []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen check", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var f check.Flags
	f.Register(fset)
	quiet := fset.Bool("q", false, "no progress bar")
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "loadgen check: unexpected argument %q\n", fset.Arg(0))
		return exitUsage
	}
	plan, err := f.Plan()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitUsage
	}
	if plan.BaselinePath != "" {
		fmt.Fprintf(stderr, "baseline: %s\n", plan.BaselinePath)
	}
	if plan.WritesBaseline() {
		cur, err := measureCheck(plan, 0, command, *quiet, stderr)
		if err == nil {
			err = plan.Keep(cur, stderr)
		}
		if err != nil {
			fmt.Fprintf(stderr, "loadgen check: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	return gateCheck(plan, command, *quiet, stdout, stderr)
}

// gateCheck runs the suite and gates it (check.Plan.Decide): more runs
// while unsure, a confirmation run before it fails. -out keeps the first
// run's files.
func gateCheck(plan check.Plan, command []string, quiet bool, stdout, stderr io.Writer) int {
	var measureErr error
	calls := 0
	outcome, err := plan.Decide(func(full bool) (*result.Run, error) {
		repeats := 0 // the suite's own
		switch {
		case !full:
			repeats = check.MoreRepeats
			fmt.Fprintf(stderr, "loadgen check: pooling another run of %d repeats: a ratio is UNKNOWN and its loss at least half the minimum effect\n", repeats)
		case calls > 0:
			fmt.Fprintln(stderr, "loadgen check: the gate failed; a confirmation run decides")
		}
		run, err := measureCheck(plan, repeats, command, quiet, stderr)
		if err == nil && calls == 0 {
			err = plan.Keep(run, stderr)
		}
		calls++
		measureErr = err
		return run, err
	})
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		if measureErr != nil {
			return exitFailure
		}
		return exitUsage // a baseline the gate cannot compare with
	}
	if err := plan.WriteOutcome(stdout, outcome); err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	if outcome.Err() != nil {
		return exitFailure
	}
	return exitOK
}

// measureCheck runs the gate's suite (repeats per point: the suite's
// own where 0), with a progress bar unless quiet.
func measureCheck(plan check.Plan, repeats int, command []string, quiet bool, stderr io.Writer) (*result.Run, error) {
	suite, err := plan.Suite()
	if repeats > 0 {
		suite, err = plan.SuiteRepeats(repeats)
	}
	if err != nil {
		return nil, err
	}
	suite.Command = command
	suite.Commit, suite.Dirty = vcs.Commit()
	bar := newProgress(stderr, quiet, suite.Steps())
	suite.Progress = bar.step
	cur, err := suite.Measure()
	bar.finish()
	return cur, err
}
