package gates

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/ab"
	"github.com/snowlab/snowlab/lab/internal/hog"
	"github.com/snowlab/snowlab/lab/internal/instr"
)

// The gates measured, the loads, and the plants.
const (
	gateInstr = "instr"
	gateAB    = "ab"

	loadQuiet = "quiet"
	loadHog   = "hog"

	// plantSlow is a slowdown planted at G=1 (Decision.Pct says how
	// much: extra calls for ab, inject steps for instr); plantContention
	// the contention plant (a cache line every goroutine writes).
	plantSlow       = "slowdown"
	plantContention = "contention"
)

var (
	allGates = []string{gateInstr, gateAB}
	allLoads = []string{loadQuiet, loadHog}
)

// defaultPaths are the instruction paths counted by default: one per
// generator and kind of call, decode/layout (which sizes a planted step)
// and the widest-band path of the instruction gate's own noise
// measurement (shardedgen/node-per-shard/strict/nextids64, 0.67%).
// Counting all 20 paths takes about 40 s on two cores: -instr-paths all
// does.
var defaultPaths = []string{
	"atomicgen/monotonic/nextid",
	"mutexgen/strict/nextid",
	"shardedgen/node-per-shard/strict/nextids64",
	"decode/layout",
}

// Flags are loadgen gates' flags: those options takes as typed, the
// lists as strings.
type Flags struct {
	o                                       options
	levels, loads, gates, paths, trialLoads string
}

// Register defines the flags in fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.IntVar(&f.o.Pairs, "pairs", 30, "same-code pairs per load (instruction counts chained: each count is the second of one pair and the first of the next; each ab pair is one loadgen ab run of base against itself)")
	fs.IntVar(&f.o.Trials, "trials", 10, "detection trials per planted slowdown and load (at most -pairs)")
	fs.StringVar(&f.levels, "levels", "3,5,10,25", "planted slowdowns at G=1, percent more instructions per call, comma-separated")
	fs.StringVar(&f.trialLoads, "trial-loads", strings.Join(allLoads, ","), "loads under which the detection trials run (a subset of -loads)")
	fs.StringVar(&f.loads, "loads", strings.Join(allLoads, ","), "loads to measure under: quiet, hog (a child spinning on every CPU)")
	fs.StringVar(&f.gates, "gates", strings.Join(allGates, ","), "gates to measure: instr, ab")
	fs.IntVar(&f.o.HogThreads, "hog", 0, "busy goroutines of the hog (0: one per CPU)")
	fs.StringVar(&f.paths, "instr-paths", strings.Join(defaultPaths, ","), "instruction paths counted, comma-separated, or all")
	fs.StringVar(&f.o.Runner.Target, "target", filepath.FromSlash("bin/instrpath"), "the instrpath binary (scripts/instr-gate.sh builds it static)")
	fs.StringVar(&f.o.Runner.Valgrind, "valgrind", "valgrind", "the valgrind program")
	fs.IntVar(&f.o.AB.Rounds, "rounds", ab.DefaultRounds, "loadgen ab's rounds per run (its default is CI's)")
	fs.DurationVar(&f.o.AB.Slice, "slice", ab.DefaultSlice, "loadgen ab's slice")
}

// options is a checked run of loadgen gates.
type options struct {
	Pairs, Trials int
	Levels        []float64
	Loads, Gates  []string
	TrialLoads    []string
	HogThreads    int
	Paths         []instr.Path
	Runner        instr.Runner
	// AB is loadgen ab's configuration for each run, the binaries and
	// the head's plant left to the run.
	AB ab.Config

	// Seams for tests: Options sets the real things.
	count func(ctx context.Context, r instr.Runner, jobs []instr.Job) (*instr.File, error)
	step  func(ctx context.Context, base *instr.File) (float64, error)
	// build builds the runners into dir: clean, planted with calls and
	// with the shared line.
	build func(ctx context.Context, dir string) (*ab.Build, error)
	// abRun is one loadgen ab run.
	abRun func(ctx context.Context, cfg ab.Config) (*ab.Result, error)
	// abCount counts subject's instructions per call in a runner
	// (ab.Count).
	abCount func(ctx context.Context, bin, subject string, args ...string) (float64, error)
	hogCmd  func(threads int, max time.Duration) (*exec.Cmd, error)
}

// instrTol is the instruction gate's tolerance as CI runs it: 1.5%.
const instrTol = instr.DefaultTolerance

// Options checks the flags; the error names the bad value.
func (f Flags) Options() (options, error) {
	// Two paths counted at once, loadgen instr's default: the counts do
	// not depend on it.
	o := f.o
	o.Runner.Workers, o.AB.Warmup, o.AB.Valgrind = 2, ab.DefaultWarmup, o.Runner.Valgrind
	var err error
	if o.Levels, err = levels(f.levels); err != nil {
		return o, err
	}
	if o.Loads, err = oneOf("-loads", f.loads, allLoads); err != nil {
		return o, err
	}
	if o.Gates, err = oneOf("-gates", f.gates, allGates); err != nil {
		return o, err
	}
	if o.TrialLoads, err = oneOf("-trial-loads", f.trialLoads, allLoads); err != nil {
		return o, err
	}
	o.TrialLoads = slices.DeleteFunc(o.TrialLoads, func(l string) bool { return !slices.Contains(o.Loads, l) })
	switch {
	case o.Pairs < 1 || o.Pairs > 1000:
		return o, fmt.Errorf("-pairs %d: want 1 to 1000", o.Pairs)
	case o.Trials < 0 || o.Trials > o.Pairs:
		return o, fmt.Errorf("-trials %d: want 0 to -pairs (%d)", o.Trials, o.Pairs)
	case o.HogThreads < 0 || o.HogThreads > hog.MaxThreads:
		return o, fmt.Errorf("-hog %d: want 0 to %d", o.HogThreads, hog.MaxThreads)
	case o.AB.Rounds < 2 || o.AB.Rounds > 10000:
		return o, fmt.Errorf("-rounds %d: want 2 to 10000", o.AB.Rounds)
	case o.AB.Slice <= 0 || o.AB.Slice > time.Minute:
		return o, fmt.Errorf("-slice %v: want above 0, at most a minute", o.AB.Slice)
	}
	if o.HogThreads == 0 {
		o.HogThreads = min(runtime.NumCPU(), hog.MaxThreads)
	}
	if slices.Contains(o.Gates, gateInstr) {
		if o.Paths, err = paths(f.paths); err != nil {
			return o, err
		}
	}
	o.count = func(ctx context.Context, r instr.Runner, jobs []instr.Job) (*instr.File, error) {
		return r.File(ctx, jobs, instrTol)
	}
	o.step = func(ctx context.Context, base *instr.File) (float64, error) {
		return instr.StepCost(ctx, o.Runner, base)
	}
	// HEAD against itself, planted runners built: the committed code,
	// checked out apart from the working tree.
	o.build = func(ctx context.Context, dir string) (*ab.Build, error) {
		return ab.BuildRevisions(ctx, ab.Source{}, "HEAD", "HEAD", dir, true, nil)
	}
	o.abRun = ab.Run
	o.abCount = func(ctx context.Context, bin, subject string, args ...string) (float64, error) {
		return ab.Count(ctx, o.Runner.Valgrind, bin, subject, args...)
	}
	return o, nil
}

func levels(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0 && v <= 100) {
			return nil, fmt.Errorf("-levels: %q: want percentages above 0 up to 100, e.g. 3,5,10,25", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func oneOf(flagName, s string, allowed []string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(allowed, f) {
			return nil, fmt.Errorf("%s: %q: want some of %s", flagName, f, strings.Join(allowed, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// paths are the named instruction paths, decode/layout always among
// them: a planted step is sized on it.
func paths(s string) ([]instr.Path, error) {
	if s == "all" {
		return instr.Paths(), nil
	}
	names := strings.Split(s, ",")
	if !slices.Contains(names, "decode/layout") {
		names = append(names, "decode/layout")
	}
	var out []instr.Path
	for _, n := range names {
		p, err := instr.Lookup(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("-instr-paths: %v", err)
		}
		out = append(out, p)
	}
	return out, nil
}
