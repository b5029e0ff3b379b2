package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/internal/check"
	"github.com/snowlab/snowlab/lab/internal/progress"
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
	cur, err := measureCheck(plan, command, *quiet, stderr)
	if err == nil {
		err = plan.Keep(cur, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	if plan.WritesBaseline() {
		return exitOK
	}
	gate, err := plan.Gate(cur)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitUsage
	}
	if err := plan.Report(stdout, gate); err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	if !gate.OK() {
		return exitFailure
	}
	return exitOK
}

// measureCheck runs the gate's suite, with a progress bar unless quiet.
func measureCheck(plan check.Plan, command []string, quiet bool, stderr io.Writer) (*result.Run, error) {
	suite, err := plan.Suite()
	if err != nil {
		return nil, err
	}
	suite.Command = command
	suite.Commit, suite.Dirty = vcs.Commit()
	bar := progress.New(stderr, quiet, suite.Steps())
	suite.Progress = bar.Step
	cur, err := suite.Measure()
	bar.Finish()
	return cur, err
}
