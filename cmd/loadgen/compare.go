package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"time"

	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/workload"
)

func runCompare(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen compare", flag.ContinueOnError)
	fset.SetOutput(stderr)
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: loadgen compare OLD.json NEW.json")
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
	if err := compare.Runs(old, cur).Write(stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// checkSuite is the fixed short suite the CI gate runs: snowlab's own
// generators only (peers are not ours to gate), saturate at 1 and 2
// goroutines, six short repeats each so the significance test has samples.
func checkSuite() suiteFlags {
	return suiteFlags{
		subjects: "own", workloads: "saturate", sweep: "1,2",
		duration: 50 * time.Millisecond, satRepeats: 6,
		// Not run; set so that the flags' range check passes.
		ids: 1, goroutines: 1, repeats: 1, rate: workload.DefaultSteadyRate, steadyDur: workload.DefaultSteadyDuration,
	}
}

func runCheck(args, command []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen check", flag.ContinueOnError)
	fset.SetOutput(stderr)
	dir := fset.String("baseline", filepath.Join("results", "baseline"), "folder holding the baseline run (the newest .json in it)")
	tol := fset.Float64("tolerance", compare.DefaultTolerance, "how much worse a ratio may get before the gate fails, more than 0 and less than 1 (0.15 = 15%)")
	write := fset.Bool("write-baseline", false, "run the suite and store it as the new baseline instead of comparing")
	quiet := fset.Bool("q", false, "no progress bar")
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "loadgen check: unexpected argument %q\n", fset.Arg(0))
		return exitUsage
	}
	if err := compare.CheckTolerance(*tol); err != nil {
		fmt.Fprintf(stderr, "loadgen check: -tolerance: %v\n", err)
		return exitUsage
	}
	sf := checkSuite()
	suite, err := sf.suite(allSubjects())
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	suite.Command = command
	var base *result.Run
	if !*write {
		path, err := newestJSON(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "loadgen check: baseline: %v (record one with: loadgen check -write-baseline)\n", err)
			return exitUsage
		}
		if base, err = result.Read(path); err != nil {
			fmt.Fprintf(stderr, "loadgen check: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "baseline: %s\n", path)
	}
	bar := newProgress(stderr, *quiet, suite.Steps())
	suite.Progress = bar.step
	cur, err := suite.Measure()
	bar.finish()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	if *write {
		paths, err := lab.WriteFiles(*dir, cur)
		if err != nil {
			fmt.Fprintf(stderr, "loadgen check: %v\n", err)
			return exitFailure
		}
		for _, p := range paths {
			fmt.Fprintln(stdout, "wrote", p)
		}
		if len(cur.Failures) > 0 {
			fmt.Fprintln(stderr, "loadgen check: the run that was to become the baseline has correctness failures")
			return exitFailure
		}
		return exitOK
	}
	gate, err := compare.Gate(base, cur, *tol)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitUsage
	}
	if err := gate.Write(stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	if !gate.OK() {
		return exitFailure
	}
	return exitOK
}

// newestJSON is the most recently named .json file in dir (result names
// start with a UTC timestamp, so name order is time order).
func newestJSON(dir string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return "", fmt.Errorf("no .json run in %s: %w", dir, fs.ErrNotExist)
	}
	sort.Strings(matches)
	return matches[len(matches)-1], nil
}
