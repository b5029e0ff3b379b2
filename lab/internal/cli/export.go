package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/result"
)

func runExport(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen export", flag.ContinueOnError)
	fset.SetOutput(stderr)
	format := fset.String("format", formatGoBench, formatHelp)
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: loadgen export [-format gobench|benchmark-action|benchmark-action-costs] RUN.json")
		return exitUsage
	}
	write, err := exportWriter(*format)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen export: %v\n", err)
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
