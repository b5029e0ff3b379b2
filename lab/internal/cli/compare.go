package cli

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
	asJSON := fset.Bool("json", false, "write the comparison as JSON instead of a table")
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: loadgen compare [-json] OLD.json NEW.json")
		return exitUsage
	}
	c, err := compareFiles(fset.Arg(0), fset.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
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
	return exitOK
}

// compareFiles reads the suite runs at oldPath and newPath and compares
// them for loadgen compare.
// A file that is not a result is an error naming it; two results that
// share nothing (an experiment's file, a run of other workloads) are an
// error saying what each one is, wrapping result.ErrExperiment or
// compare.ErrNothingInCommon.
func compareFiles(oldPath, newPath string) (compare.Comparison, error) {
	paths := [2]string{oldPath, newPath}
	var runs [2]*result.Run
	var errs [2]error
	for i := range runs {
		runs[i], errs[i] = result.Read(paths[i])
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, result.ErrExperiment) {
			return compare.Comparison{}, err
		}
	}
	if errs[0] != nil || errs[1] != nil {
		// Say what each file is, the one that is a suite run too.
		for i, err := range errs {
			if err == nil {
				errs[i] = fmt.Errorf("%s: a suite run (commit %s, %d subjects)", paths[i], runs[i].Revision(), len(runs[i].Subjects))
			}
		}
		return compare.Comparison{}, fmt.Errorf("nothing to compare: %w; %w", errs[0], errs[1])
	}
	c := compare.Runs(runs[0], runs[1])
	if err := c.Err(); err != nil {
		return compare.Comparison{}, fmt.Errorf("%s vs %s: %w", oldPath, newPath, err)
	}
	return c, nil
}
