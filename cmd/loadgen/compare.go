package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/result"
)

func runCompare(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen compare", flag.ContinueOnError)
	fset.SetOutput(stderr)
	failOn := fset.Bool("fail-on-regression", false, "exit 1 when any metric got significantly worse")
	asJSON := fset.Bool("json", false, "write the comparison as JSON instead of a table")
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: loadgen compare [-fail-on-regression] [-json] OLD.json NEW.json")
		return exitUsage
	}
	old, err := result.Read(fset.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
		return exitUsage
	}
	cur, err := result.Read(fset.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
		return exitUsage
	}
	c := compare.Runs(old, cur)
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
