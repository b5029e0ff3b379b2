package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/inject"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/progress"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/report"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/resultdir"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/suiteflags"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/vcs"
	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/workload"
)

// checkSuite is the fixed short suite the CI gate runs: snowlab's own
// generators (peers are not ours to gate) and the two physical-limit
// subjects its ratios are read against, saturate at 1 and 2 goroutines,
// six short interleaved repeats each so the significance test has samples
// and every ratio compares repeats that ran a moment apart.
func checkSuite() suiteflags.Flags {
	return suiteflags.Flags{
		Subjects: "own,limit", Workloads: "saturate", Sweep: "1,2",
		Duration: 50 * time.Millisecond, SatRepeats: 6,
		// Not run; set so that the flags' range check passes.
		IDs: 1, Goroutines: 1, Repeats: 1, Rate: workload.DefaultSteadyRate, SteadyDur: workload.DefaultSteadyDuration,
		Budget: workload.DefaultCeilingBudget,
	}
}

func runCheck(args, command []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen check", flag.ContinueOnError)
	fset.SetOutput(stderr)
	dir := fset.String("baseline", filepath.FromSlash(resultdir.Baseline), "the baseline run: a result `FILE`.json, or a folder whose newest .json is used (-write-baseline: the folder to write into)")
	tol := fset.Float64("tolerance", compare.DefaultTolerance, "how much worse a ratio may get before the gate fails, more than 0 and less than 1 (0.25 = 25%)")
	write := fset.Bool("write-baseline", false, "run the suite and store it as the new baseline instead of comparing")
	out := fset.String("out", "", "also write the checked run's files (JSON, Markdown, charts, HTML page) into this folder, for a CI artifact")
	asJSON := fset.Bool("json", false, "write the gate's finding as JSON instead of a table")
	quiet := fset.Bool("q", false, "no progress bar")
	slow := inject.Register(fset)
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
	if *slow && *write {
		fmt.Fprintf(stderr, "loadgen check: -%s with -write-baseline would record the regression as the baseline\n", inject.Flag)
		return exitUsage
	}
	base, code := checkBaseline(*dir, *write, stderr)
	if code >= 0 {
		return code
	}
	all := suiteflags.All()
	if *slow {
		all = inject.Slow(all)
	}
	sf := checkSuite()
	suite, err := sf.Suite(all)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	suite.Command = command
	suite.Commit, suite.Dirty = vcs.Commit()
	bar := progress.New(stderr, *quiet, suite.Steps())
	suite.Progress = bar.Step
	cur, err := suite.Measure()
	bar.Finish()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	if *write || *out != "" {
		to := *out
		if *write {
			to = *dir
		}
		paths, err := report.WriteFiles(to, cur)
		if err != nil {
			fmt.Fprintf(stderr, "loadgen check: %v\n", err)
			return exitFailure
		}
		for _, p := range paths {
			fmt.Fprintln(stderr, "wrote", p)
		}
	}
	if *write {
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
	report := gate.Write
	if *asJSON {
		report = gate.WriteJSON
	}
	if err := report(stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen check: %v\n", err)
		return exitFailure
	}
	if !gate.OK() {
		return exitFailure
	}
	return exitOK
}

// checkBaseline reads the baseline -baseline names, refused before the
// suite runs where it cannot be compared with; under -write-baseline it
// checks that dir can be written into instead, and reads nothing. It
// returns the exit code to stop with, or -1 to go on.
func checkBaseline(dir string, write bool, stderr io.Writer) (base *result.Run, code int) {
	if !write {
		path, err := resultdir.BaselineFile(dir)
		if err != nil {
			fmt.Fprintf(stderr, "loadgen check: -baseline: %v (record one with: loadgen check -write-baseline)\n", err)
			return nil, exitUsage
		}
		if base, err = result.Read(path); err != nil {
			fmt.Fprintf(stderr, "loadgen check: -baseline: %v\n", err)
			return nil, exitUsage
		}
		// Refused before the suite runs: a baseline with no gated
		// ratio would fail the gate after it, having compared nothing.
		if err := compare.CheckBaseline(base); err != nil {
			fmt.Fprintf(stderr, "loadgen check: -baseline %s: %v\n", path, err)
			return nil, exitUsage
		}
		fmt.Fprintf(stderr, "baseline: %s\n", path)
	} else if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		fmt.Fprintf(stderr, "loadgen check: -write-baseline -baseline %s: want a folder to write the baseline into, not a file\n", dir)
		return nil, exitUsage
	}
	return base, -1
}
