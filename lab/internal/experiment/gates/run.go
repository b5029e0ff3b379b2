package gates

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/snowlab/snowlab/lab/internal/check"
	"github.com/snowlab/snowlab/lab/internal/hog"
	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/inject"
	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// hogMax bounds one pair's hog: a pair with its trials takes about a
// minute (2 runs of the suite at 7 s, 4 planted with their pooled runs,
// the counts); the hog is stopped after each pair in any case.
const hogMax = 5 * time.Minute

// measured is the subject whose slowdown the wall side measures.
const measured = "atomicgen/monotonic"

// Execute runs o. A run cut short (ctx ended, a step failed) returns
// what it has with the error.
func Execute(ctx context.Context, o Options, command []string, commit string, dirty bool, progress func(string)) (*Result, error) {
	if progress == nil {
		progress = func(string) {}
	}
	r := &Result{Header: resultdir.NewHeader("gates", Schema, command, commit, dirty, nil),
		Pairs: o.Pairs, Trials: o.Trials, Levels: o.Levels, Loads: o.Loads, Gates: o.Gates, HogThreads: o.HogThreads}
	for _, p := range o.Paths {
		r.Paths = append(r.Paths, p.Name)
	}
	start, meter := time.Now(), host.StartLoad()
	defer func() { r.Elapsed, r.Host.Load = time.Since(start), meter.Stop() }()
	x := &run{o: o, r: r, limits: map[string]map[string][]float64{}}
	x.defaults()
	err := x.all(ctx, progress)
	r.Limits = limits(x.limits)
	r.Failures = append(r.Failures, goals(r)...)
	return r, err
}

// run is Execute's state.
type run struct {
	o      Options
	r      *Result
	limits map[string]map[string][]float64 // load → ratio → values
	// prevRun and prevCount are the last pair's second run and count,
	// the next pair's first: pairs are chained, so that 30 pairs take 31
	// runs of the suite (about 10 s each on two cores), not 60.
	prevRun   *result.Run
	prevCount *instr.File
}

// trial is whether pair k under load runs the detection trials.
func (x *run) trial(load string, k int) bool {
	return k < x.o.Trials && slices.Contains(x.o.TrialLoads, load)
}

func (x *run) defaults() {
	if x.o.measure == nil {
		x.o.measure = func(_ context.Context, repeats int, pct float64) (*result.Run, error) {
			var wrap func([]subject.Subject) []subject.Subject
			var plantErr error
			if pct > 0 {
				wrap = func(all []subject.Subject) []subject.Subject {
					out, err := inject.Plant(all, x.r.plantedQ(pct))
					if err != nil {
						plantErr = err
						return all
					}
					return out
				}
			}
			s, err := check.GateSuite(repeats, wrap) // calls wrap
			if plantErr != nil {
				return nil, plantErr
			}
			if err != nil {
				return nil, err
			}
			return s.Measure()
		}
	}
	if x.o.count == nil {
		x.o.count = func(ctx context.Context, jobs []instr.Job) (*instr.File, error) {
			f := &instr.File{When: time.Now().UTC(), Tolerance: instrTol}
			if err := instr.Stamp(f, x.o.Runner.Valgrind, x.o.Runner.Target); err != nil {
				return nil, err
			}
			var err error
			f.Paths, err = x.o.Runner.Measure(ctx, jobs)
			return f, err
		}
	}
	if x.o.step == nil {
		x.o.step = func(ctx context.Context, base *instr.File) (float64, error) {
			return instr.StepCost(ctx, x.o.Runner, base)
		}
	}
}

func (x *run) wants(gate string) bool { return slices.Contains(x.o.Gates, gate) }

func (x *run) wall() bool { return x.wants(GateWall) || x.wants(GateCompare) || x.wants(GateRatio) }

func (x *run) all(ctx context.Context, progress func(string)) error {
	if x.wall() && x.o.Trials > 0 {
		if err := x.calibrate(ctx, progress); err != nil {
			return err
		}
	}
	for _, load := range x.o.Loads {
		for k := range x.o.Pairs {
			if err := ctx.Err(); err != nil {
				return err
			}
			progress(fmt.Sprintf("gates: %s pair %d of %d", load, k+1, x.o.Pairs))
			if err := x.pairUnder(ctx, load, k); err != nil {
				return fmt.Errorf("%s pair %d: %w", load, k+1, err)
			}
		}
	}
	return nil
}

// calibrate sizes each planted slowdown, quiet, before the first pair:
// the q whose measured slowdown of atomicgen/monotonic in a tight loop is
// the level asked for.
func (x *run) calibrate(ctx context.Context, progress func(string)) error {
	progress("gates: sizing the planted slowdowns (atomicgen/monotonic in a tight loop, planted and clean)")
	var loopErr error
	cost := x.o.cost
	if cost == nil {
		cost = func(q int) float64 {
			v, err := loopCost(q)
			if err != nil && loopErr == nil {
				loopErr = err
			}
			return v
		}
	}
	x.r.Calibration, x.r.Planted = calibrate(x.o.Levels, cost)
	if loopErr != nil {
		return fmt.Errorf("sizing the planted slowdowns: %w", loopErr)
	}
	for _, p := range x.r.Planted {
		if !p.Reached {
			x.r.Failures = append(x.r.Failures, fmt.Sprintf("the planting could not reach %g%%: the largest q measured (%d/1024 steps a call) is used", p.Pct, p.Q))
		}
	}
	return ctx.Err()
}

// pairUnder is pair k and its trials under load, the hog started for it
// and stopped after it.
func (x *run) pairUnder(ctx context.Context, load string, k int) error {
	if load == LoadHog {
		h, err := hog.Start(ctx, hog.Config{Threads: x.o.HogThreads, Max: hogMax, Command: x.o.hogCmd})
		if err != nil {
			return err
		}
		defer func() { x.r.HogCPUSeconds += h.Stop().Seconds() }()
	}
	if x.wall() {
		if err := x.wallPair(ctx, load, k); err != nil {
			return err
		}
	}
	if x.wants(GateInstr) {
		return x.instrPair(ctx, load, k)
	}
	return nil
}

func (x *run) decide(d Decision) { x.r.Decisions = append(x.r.Decisions, d) }

// goals are the goals a run missed: any false alarm, and the instruction
// gate missing a planted 3% or more.
func goals(r *Result) []string {
	var out []string
	for _, g := range r.Gates {
		for _, load := range r.Loads {
			if c := r.Summary(g, load, 0); c.Failed > 0 {
				out = append(out, fmt.Sprintf("%s gate: %d false alarms in %d same-code pairs %s", g, c.Failed, c.Of, loadText(load)))
			}
			if g != GateInstr {
				continue
			}
			for _, pct := range r.Levels {
				if c := r.Summary(g, load, pct); pct >= 3 && c.Failed < c.Of {
					out = append(out, fmt.Sprintf("instr gate: caught %d of %d planted %g%% slowdowns %s", c.Failed, c.Of, pct, loadText(load)))
				}
			}
		}
	}
	return out
}

func loadText(load string) string {
	if load == LoadHog {
		return "beside the hog"
	}
	return "quiet"
}

func pct(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	v = 100 * v
	return &v
}

// correctness adds a run's correctness failures to the result's.
func (x *run) correctness(what string, run *result.Run) {
	for _, f := range run.Failures {
		x.r.Failures = append(x.r.Failures, fmt.Sprintf("%s: %v", what, f))
	}
}
