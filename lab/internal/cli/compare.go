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

// nothingError is the error for two runs that share nothing (an
// experiment's file, a run of other workloads): no comparison, which a
// gate must not pass.
// It wraps compare.ErrNothingInCommon, or result.ErrExperiment when a
// file is an experiment's.
type nothingError struct {
	msg string
	err error
}

func (e *nothingError) Error() string { return e.msg }

// Unwrap returns the reason: compare.ErrNothingInCommon or
// result.ErrExperiment.
func (e *nothingError) Unwrap() error { return e.err }

// compareFiles reads the suite runs at oldPath and newPath and compares
// them for loadgen compare.
// A file that is not a result is an error naming it; two results that
// share nothing are a *nothingError saying what each one is.
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
		var what [2]string
		for i, err := range errs {
			if err != nil {
				what[i] = err.Error()
			} else {
				what[i] = fmt.Sprintf("%s: a suite run (commit %s, %d subjects)", paths[i], runs[i].Revision(), len(runs[i].Subjects))
			}
		}
		return compare.Comparison{}, &nothingError{fmt.Sprintf("nothing to compare: %s; %s", what[0], what[1]), result.ErrExperiment}
	}
	c := compare.Runs(runs[0], runs[1])
	if err := c.Err(); err != nil {
		return compare.Comparison{}, &nothingError{fmt.Sprintf("%s vs %s: %v", oldPath, newPath, err), err}
	}
	return c, nil
}
