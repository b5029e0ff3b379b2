package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/result"
)

func runCompare(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen compare", flag.ContinueOnError)
	fset.SetOutput(stderr)
	failOn := fset.Bool("fail-on-regression", false, "exit 1 when any metric got significantly worse, or when the runs share no metric")
	asJSON := fset.Bool("json", false, "write the comparison as JSON instead of a table")
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: loadgen compare [-fail-on-regression] [-json] OLD.json NEW.json")
		return exitUsage
	}
	// Runs that share nothing (an experiment's file, a run of other
	// workloads) are no comparison: a usage error, or under
	// -fail-on-regression a failure, as a gate must not pass on nothing.
	nothing := exitUsage
	if *failOn {
		nothing = exitFailure
	}
	var runs [2]*result.Run
	var errs [2]error
	for i := range runs {
		runs[i], errs[i] = result.Read(fset.Arg(i))
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, result.ErrExperiment) {
			fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
			return exitUsage
		}
	}
	if errs[0] != nil || errs[1] != nil {
		// Say what each file is, the one that is a suite run too.
		var what [2]string
		for i, err := range errs {
			if err != nil {
				what[i] = err.Error()
			} else {
				what[i] = fmt.Sprintf("%s: a suite run (commit %s, %d subjects)", fset.Arg(i), runs[i].Revision(), len(runs[i].Subjects))
			}
		}
		fmt.Fprintf(stderr, "loadgen compare: nothing to compare: %s; %s\n", what[0], what[1])
		return nothing
	}
	c := compare.Runs(runs[0], runs[1])
	if err := c.Err(); err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %s vs %s: %v\n", fset.Arg(0), fset.Arg(1), err)
		return nothing
	}
	write := c.Write
	if *asJSON {
		write = c.WriteJSON
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
		return exitFailure
	}
	if reg := c.Regressions(); *failOn && len(reg) > 0 {
		fmt.Fprintf(stderr, "loadgen compare: %d metric(s) significantly worse, first: %s %s (%s)\n",
			len(reg), reg[0].Metric, reg[0].Name, reg[0].Verdict)
		return exitFailure
	}
	return exitOK
}
