package instr

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/vcs"
)

// requireEnv set to 1 makes a missing valgrind a failure instead of a
// skip (CI sets it).
const requireEnv = "SNOWLAB_REQUIRE_VALGRIND"

type options struct {
	runner   Runner
	baseline string
	against  string
	names    string
	write    bool
	tol      float64
	inject   float64
	out      string
}

// Main is loadgen instr, the instruction-count gate: it counts every
// path under cachegrind and compares the counts with the baseline, or
// writes the baseline (-write-baseline), or counts the same paths of
// another build and compares with those (-against: two runners loadgen
// ab -keep built, base and head; no baseline file, so no re-baselining
// when the toolchain changes). The target is a lab/runner program
// (-list, -path NAME -n N): instrpath, the runner over Paths, or a user's
// main over its own generator. It returns the exit status: 0
// (passed, or skipped where valgrind is missing and not required), 1 (a
// path got dearer than the tolerance, or a step failed), 2 (bad input).
func Main(args []string, stdout, stderr io.Writer) int {
	o, code := parse(args, stderr)
	if code >= 0 {
		return code
	}
	if _, err := exec.LookPath(o.runner.Valgrind); err != nil {
		if os.Getenv(requireEnv) == "1" {
			fmt.Fprintf(stderr, "loadgen instr: %s not found and %s=1: install it (scripts/instr-gate.sh does, from Debian)\n", o.runner.Valgrind, requireEnv)
			return 1
		}
		fmt.Fprintf(stdout, "loadgen instr: skipped: %s not found (valgrind runs on Linux; not on macOS or Windows); %s=1 makes this fail\n", o.runner.Valgrind, requireEnv)
		return 0
	}
	if err := o.run(context.Background(), stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "loadgen instr: %v\n", err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func parse(args []string, stderr io.Writer) (options, int) {
	fs := flag.NewFlagSet("loadgen instr", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.runner.Target, "target", filepath.FromSlash("bin/instrpath"), "the binary to count: instrpath (scripts/instr-gate.sh builds it static) or a lab/runner program (loadgen ab -keep builds one from each revision)")
	fs.StringVar(&o.against, "against", "", "count the same paths of this binary (base's runner) and compare with its counts instead of a baseline file")
	fs.StringVar(&o.names, "paths", "", "the paths to count, comma-separated (default: every path the target lists with -list)")
	fs.StringVar(&o.runner.Valgrind, "valgrind", "valgrind", "the valgrind program")
	fs.IntVar(&o.runner.Workers, "workers", 2, "paths counted at once (the counts do not depend on it)")
	fs.StringVar(&o.baseline, "baseline", filepath.FromSlash(baselinePath), "the baseline to compare with, or to write")
	fs.BoolVar(&o.write, "write-baseline", false, "write the counts as the baseline instead of comparing")
	fs.Float64Var(&o.tol, "tolerance", DefaultTolerance, "fail a path whose count grew by more than this fraction")
	fs.Float64Var(&o.inject, "inject", 0, "plant a regression of about this many percent on every path (Spin), to show the gate fails it")
	fs.StringVar(&o.out, "o", "", "also write this run's counts to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, 0
		}
		return o, 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "loadgen instr: unexpected argument %q\n", fs.Arg(0))
	case !(o.tol > 0 && o.tol < 1):
		fmt.Fprintf(stderr, "loadgen instr: -tolerance %v: want a fraction between 0 and 1, e.g. 0.015\n", o.tol)
	case !(o.inject >= 0 && o.inject <= 100):
		fmt.Fprintf(stderr, "loadgen instr: -inject %v: want a percentage from 0 to 100\n", o.inject)
	case o.inject > 0 && o.write:
		fmt.Fprintln(stderr, "loadgen instr: -inject with -write-baseline would record the regression as the baseline")
	case o.against != "" && (o.write || o.inject > 0):
		fmt.Fprintln(stderr, "loadgen instr: -against compares two builds as they are: not with -write-baseline or -inject")
	case o.runner.Workers < 1 || o.runner.Workers > 64:
		fmt.Fprintf(stderr, "loadgen instr: -workers %d: want 1 to 64\n", o.runner.Workers)
	default:
		return o, -1
	}
	return o, 2
}

func (o options) run(ctx context.Context, stdout, stderr io.Writer) error {
	paths, err := o.paths(ctx)
	if err != nil {
		return err
	}
	var base *File
	against := o.baseline
	switch {
	case o.against != "":
		against = o.against
		// Two builds counted now, on whatever machine the job got: the
		// least of three counts each (Runner.Tries).
		o.runner.Tries = 3
		other := o.runner
		other.Target = o.against
		if base, err = other.File(ctx, PlantJobs(nil, paths, 0, 0), o.tol); err != nil {
			return fmt.Errorf("-against %s: %w", o.against, err)
		}
	case !o.write:
		if base, err = read(o.baseline); err != nil {
			return fmt.Errorf("%w (make instr-baseline writes one)", err)
		}
	}
	jobs, err := o.jobs(ctx, base, paths, stderr)
	if err != nil {
		return err
	}
	start := time.Now()
	cur, err := o.runner.File(ctx, jobs, o.tol)
	if err != nil {
		return err
	}
	cur.Commit, _ = vcs.Commit()
	fmt.Fprintf(stderr, "counted %d paths in %.0f s\n", len(jobs), time.Since(start).Seconds())
	if o.out != "" {
		if err := write(o.out, cur); err != nil {
			return err
		}
	}
	if o.write {
		if err := write(o.baseline, cur); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d paths, %s, %s)\n", o.baseline, len(cur.Paths), cur.Go, cur.Valgrind)
		return nil
	}
	rows, err := Compare(base, cur, o.tol)
	if err != nil {
		return err
	}
	if err := writeRows(stdout, rows, o.tol); err != nil {
		return err
	}
	if n := Worse(rows); n > 0 {
		return fmt.Errorf("%w: %d of %d paths count more than %.1f%% above %s", errRegression, n, len(rows), 100*o.tol, against)
	}
	return nil
}

// jobs are the paths to count, with the planted steps under -inject.
func (o options) jobs(ctx context.Context, base *File, paths []Path, stderr io.Writer) ([]Job, error) {
	if o.inject == 0 {
		return PlantJobs(base, paths, 0, 0), nil
	}
	step, err := StepCost(ctx, o.runner, base)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "planting about %.1f%% per path: one step costs %.2f instructions\n", o.inject, step)
	return PlantJobs(base, paths, o.inject, step), nil
}

// defaultCalls is the calls a count adds for a path instrpath does not
// have (a lab/runner subject): as many as its NextID paths, about 30
// million instructions at 150 a call.
const defaultCalls = 200_000

// paths are the paths -paths names, or every path the target lists;
// instrpath's own with their calls, others with defaultCalls.
func (o options) paths(ctx context.Context) ([]Path, error) {
	var names []string
	if o.names != "" {
		names = strings.Split(o.names, ",")
	} else {
		out, err := exec.CommandContext(ctx, o.runner.Target, "-list").Output()
		if err != nil {
			return nil, fmt.Errorf("%w: %s -list: %v", errUsage, o.runner.Target, err)
		}
		names = strings.Fields(string(out))
	}
	paths := Named(names)
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: %s lists no paths", errUsage, o.runner.Target)
	}
	return paths, nil
}

// Named are the paths named: instrpath's own with their calls, any other
// (a lab/runner subject) with defaultCalls.
func Named(names []string) []Path {
	var paths []Path
	for _, n := range names {
		p, err := Lookup(strings.TrimSpace(n))
		if err != nil {
			p = Path{Name: strings.TrimSpace(n), Calls: defaultCalls}
		}
		paths = append(paths, p)
	}
	return paths
}

// PlantJobs makes the jobs that count paths with about pct percent more
// instructions each (none when pct is 0): each path's steps are its share
// of base's count divided by what one step costs (StepCost), at least
// one. The loop's entry adds a few instructions a call beyond its steps,
// so the counts grow somewhat more than asked: the change column says by
// how much.
func PlantJobs(base *File, paths []Path, pct, step float64) []Job {
	jobs := make([]Job, len(paths))
	for i, p := range paths {
		jobs[i] = Job{Path: p}
		if pct > 0 {
			jobs[i].Steps = max(1, int(math.Round(pct/100*perCall(base, p.Name)/step)))
		}
	}
	return jobs
}

// spinSteps is how many steps stepCost plants to measure one.
const spinSteps = 1000

// StepCost is what one planted step (spin) costs, in
// instructions: decode/layout counted with 1,000 steps a call, less its
// count in base.
func StepCost(ctx context.Context, r Runner, base *File) (float64, error) {
	const probe = "decode/layout"
	b := perCall(base, probe)
	p, err := Lookup(probe)
	if err != nil || b <= 0 {
		return 0, fmt.Errorf("%w: no %s count to size the planted steps by", errBaseline, probe)
	}
	p.Calls = 4000 // about 16 million instructions at 1,000 steps a call
	with, err := r.PerCall(ctx, probe, p.Calls, spinSteps)
	if err != nil {
		return 0, err
	}
	step := (with - b) / spinSteps
	if !(step > 0.5) {
		// A step is a load, an add, a store and the loop's own
		// increment, compare and branch: a count below half an
		// instruction means the planted steps did not run.
		return 0, fmt.Errorf("%w: %d planted steps added %.1f instructions a call to %s", ErrValgrind, spinSteps, with-b, probe)
	}
	return step, nil
}

func perCall(f *File, name string) float64 {
	for _, p := range f.Paths {
		if p.Name == name {
			return p.PerCall
		}
	}
	return 0
}
