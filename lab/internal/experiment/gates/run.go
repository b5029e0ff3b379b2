package gates

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/snowlab/snowlab/lab/internal/ab"
	"github.com/snowlab/snowlab/lab/internal/hog"
	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// hogMax bounds one pair's hog: a pair with its trials takes a few
// minutes (a loadgen ab run is about half a minute, the counts some
// seconds each); the hog is stopped after each pair in any case.
const hogMax = 10 * time.Minute

// Execute runs o. A run cut short (ctx ended, a step failed) returns
// what it has with the error.
func Execute(ctx context.Context, o options, command []string, commit string, dirty bool, progress func(string)) (*Result, error) {
	if progress == nil {
		progress = func(string) {}
	}
	r := &Result{Header: resultdir.NewHeader("gates", schema, command, commit, dirty, nil),
		Pairs: o.Pairs, Trials: o.Trials, Levels: o.Levels, Loads: o.Loads, Gates: o.Gates, HogThreads: o.HogThreads}
	for _, p := range o.Paths {
		r.Paths = append(r.Paths, p.Name)
	}
	start, meter := time.Now(), host.StartLoad()
	defer func() { r.Elapsed, r.Host.Load = time.Since(start), meter.Stop() }()
	if slices.Contains(o.Gates, gateAB) {
		r.AB = &abConfig{Rounds: o.AB.Rounds, SliceMS: float64(o.AB.Slice) / 1e6, WarmupMS: float64(o.AB.Warmup) / 1e6}
		r.AB.Options, _ = o.AB.Options.WithDefaults()
	}
	x := &run{o: o, r: r}
	err := x.all(ctx, progress)
	r.Failures = append(r.Failures, goals(r)...)
	return r, err
}

// run is Execute's state.
type run struct {
	o options
	r *Result
	// prevCount is the last pair's second count, the next pair's first:
	// instruction pairs are chained, so that 30 pairs take 31 counts.
	prevCount *instr.File
	// bins are the runners loadgen ab compares; line sizes its plants.
	bins *ab.Build
	line ab.CallsLine
}

// trial is whether pair k under load runs the detection trials.
func (x *run) trial(load string, k int) bool {
	return k < x.o.Trials && slices.Contains(x.o.TrialLoads, load)
}

func (x *run) wants(gate string) bool { return slices.Contains(x.o.Gates, gate) }

func (x *run) all(ctx context.Context, progress func(string)) error {
	if x.wants(gateAB) {
		dir, err := os.MkdirTemp("", "loadgen-gates-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		progress("gates: building the runners loadgen ab compares (HEAD, and HEAD planted)")
		if x.bins, err = x.o.build(ctx, dir); err != nil {
			return err
		}
		defer x.bins.Close()
		if x.o.Trials > 0 {
			if err := x.sizePlants(ctx, progress); err != nil {
				return err
			}
		}
	}
	for _, load := range x.o.Loads {
		for k := range x.o.Pairs {
			if err := ctx.Err(); err != nil {
				return err
			}
			progress(fmt.Sprintf("gates: %s pair %d of %d", load, k+1, x.o.Pairs))
			if err := x.pairUnder(ctx, load, k, progress); err != nil {
				return fmt.Errorf("%s pair %d: %w", load, k+1, err)
			}
		}
	}
	return nil
}

// pairUnder is pair k and its trials under load, the hog started for it
// and stopped after it.
func (x *run) pairUnder(ctx context.Context, load string, k int, progress func(string)) error {
	if load == loadHog {
		h, err := hog.Start(ctx, hog.Config{Threads: x.o.HogThreads, Max: hogMax, Command: x.o.hogCmd})
		if err != nil {
			return err
		}
		defer func() { x.r.HogCPUSeconds += h.Stop().Seconds() }()
	}
	if x.wants(gateAB) {
		if err := x.abPair(ctx, load, k, progress); err != nil {
			return err
		}
	}
	if x.wants(gateInstr) {
		return x.instrPair(ctx, load, k)
	}
	return nil
}

func (x *run) decide(d decision) { x.r.Decisions = append(x.r.Decisions, d) }

// goals are the goals a run missed: any false alarm; the instruction gate
// missing a planted 3% or more; the A/B gate catching fewer than 9 in 10
// planted slowdowns of 5% or more, or of the contention plant; the
// instruction gate failing the contention plant, which adds a store a
// call and no more.
func goals(r *Result) []string {
	var out []string
	for _, g := range r.Gates {
		for _, load := range r.Loads {
			if c := r.Summary(g, load, "", 0); c.Failed > 0 {
				out = append(out, fmt.Sprintf("%s gate: %d false alarms in %d same-code pairs %s", g, c.Failed, c.Of, loadText(load)))
			}
			for _, pct := range r.Levels {
				c := r.Summary(g, load, plantSlow, pct)
				switch {
				case c.Of == 0:
				case g == gateInstr && pct >= 3 && c.Failed < c.Of:
					out = append(out, fmt.Sprintf("instr gate: caught %d of %d planted %g%% slowdowns %s", c.Failed, c.Of, pct, loadText(load)))
				case g == gateAB && pct >= 5 && 10*c.Failed < 9*c.Of:
					out = append(out, fmt.Sprintf("ab gate: caught %d of %d planted %g%% slowdowns at G=1 %s", c.Failed, c.Of, pct, loadText(load)))
				}
			}
			c := r.Summary(g, load, plantContention, 0)
			switch {
			case c.Of == 0:
			case g == gateAB && 10*c.Failed < 9*c.Of:
				out = append(out, fmt.Sprintf("ab gate: caught %d of %d contention plants %s", c.Failed, c.Of, loadText(load)))
			case g == gateInstr && c.Failed > 0:
				out = append(out, fmt.Sprintf("instr gate: failed %d of %d contention plants %s (a store a call should pass it)", c.Failed, c.Of, loadText(load)))
			}
		}
	}
	return out
}

func loadText(load string) string {
	if load == loadHog {
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
