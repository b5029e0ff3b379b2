package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

func runCompare(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen compare", flag.ContinueOnError)
	fset.SetOutput(stderr)
	failOn := fset.Bool("fail-on-regression", false, "exit 1 when any metric got significantly worse, or when the runs share no metric: "+
		"informational (every metric, absolute IDs/s included, at alpha 0.05 with no correction and no minimum effect, so identical code fails it); "+
		"the gate for CI is loadgen gate")
	asJSON := fset.Bool("json", false, "write the comparison as JSON instead of a table")
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: loadgen compare [-fail-on-regression] [-json] OLD.json NEW.json")
		return exitUsage
	}
	c, err := compareFiles(fset.Arg(0), fset.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
		// Runs that share nothing are no comparison: a usage error, or
		// under -fail-on-regression a failure, as a gate must not pass
		// on nothing.
		if *failOn && errors.As(err, new(*nothingError)) {
			return exitFailure
		}
		return exitUsage
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
		fmt.Fprintf(stderr, "loadgen compare: this is informational (each metric tested alone, absolute figures included); "+
			"the CI gate is loadgen gate -baseline %s %s\n", fset.Arg(0), fset.Arg(1))
		return exitFailure
	}
	return exitOK
}
