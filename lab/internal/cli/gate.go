package cli

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/wallgate"
	"github.com/snowlab/snowlab/lab/result"
)

// runGate is `loadgen gate [-baseline OLD.json|DIR] NEW.json`: the
// wall-time gate (lab/internal/wallgate) on two result files.
func runGate(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen gate", flag.ContinueOnError)
	fset.SetOutput(stderr)
	baseline := fset.String("baseline", filepath.FromSlash(resultdir.Baseline), "the baseline run: a result file, or a folder's newest .json")
	var o wallgate.Options
	fset.Float64Var(&o.Alpha, "alpha", wallgate.DefaultAlpha, "the family-wise error rate over every ratio tested (Holm)")
	fset.Float64Var(&o.MinEffect, "min-effect", wallgate.DefaultMinEffect, "the smallest loss (fraction of IDs for the same work) that can fail the gate")
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: loadgen gate [-baseline OLD.json|DIR] [-alpha A] [-min-effect E] NEW.json")
		return exitUsage
	}
	basePath, err := resultdir.BaselineFile(*baseline)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen gate: -baseline %s: %v\n", *baseline, err)
		return exitUsage
	}
	base, err := result.Read(basePath)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen gate: %v\n", err)
		return exitUsage
	}
	cur, err := result.Read(fset.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "loadgen gate: %v\n", err)
		return exitUsage
	}
	rep, err := wallgate.Decide(base, cur, o)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen gate: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "baseline: %s\n", basePath)
	if err := rep.Write(stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen gate: %v\n", err)
		return exitFailure
	}
	if err := rep.Err(); err != nil {
		fmt.Fprintf(stderr, "loadgen gate: %v\n", err)
		return exitFailure
	}
	return exitOK
}
