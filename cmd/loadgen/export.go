package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/export"
	"github.com/snowlab/snowlab/lab/result"
)

// The formats loadgen export writes.
const (
	formatGoBench              = "gobench"
	formatActionBenchmark      = "benchmark-action"
	formatActionBenchmarkCosts = "benchmark-action-costs"
)

func runExport(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen export", flag.ContinueOnError)
	fset.SetOutput(stderr)
	format := fset.String("format", formatGoBench, fmt.Sprintf("%s: Go's benchmark format, one line per saturate repeat, for benchstat; "+
		"%s: github-action-benchmark's customBiggerIsBetter JSON (IDs/s and the gate's ratios where higher is better); "+
		"%s: its customSmallerIsBetter JSON (the gate's costs: ns/ID over a limit, 1× being the limit)",
		formatGoBench, formatActionBenchmark, formatActionBenchmarkCosts))
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: loadgen export [-format gobench|benchmark-action|benchmark-action-costs] RUN.json")
		return exitUsage
	}
	var write func(io.Writer, *result.Run) error
	switch *format {
	case formatGoBench:
		write = export.GoBench
	case formatActionBenchmark:
		write = export.WriteActionBenchmark
	case formatActionBenchmarkCosts:
		write = export.WriteActionBenchmarkCosts
	default:
		fmt.Fprintf(stderr, "loadgen export: -format %q: want %s, %s or %s\n", *format, formatGoBench, formatActionBenchmark, formatActionBenchmarkCosts)
		return exitUsage
	}
	run, err := result.Read(fset.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "loadgen export: %v\n", err)
		return exitUsage
	}
	if err := write(stdout, run); err != nil {
		fmt.Fprintf(stderr, "loadgen export: %v\n", err)
		return exitFailure
	}
	return exitOK
}
