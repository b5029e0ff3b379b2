package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/result"
)

// compareCmd is `loadgen compare [-json] OLD.json NEW.json`.
func compareCmd(fs *flag.FlagSet) command {
	asJSON := fs.Bool("json", false, "write the comparison as JSON instead of a table")
	return func(args []string, stdout, _ io.Writer) error {
		if len(args) != 2 {
			return usageLine("usage: loadgen compare [-json] OLD.json NEW.json")
		}
		c, err := compareFiles(args[0], args[1])
		if err != nil {
			return experiment.Usage(err)
		}
		if *asJSON {
			return c.WriteJSON(stdout)
		}
		return c.Write(stdout)
	}
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
