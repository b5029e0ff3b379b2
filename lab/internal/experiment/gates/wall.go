package gates

import (
	"context"
	"fmt"
	"math"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/check"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/wallgate"
	"github.com/snowlab/snowlab/lab/result"
)

// firstRepeats is the repeats of a gated run; pooled and confirmation
// runs have check.MoreRepeats, as loadgen check's.
const firstRepeats = 6

// wallPair is pair k on the wall-time side: a clean run gated against
// the previous pair's second run (pair 1: against a run of its own), the
// same-code pair; then, for the first Trials pairs, under each planted
// slowdown a planted run gated against the same baseline.
func (x *run) wallPair(ctx context.Context, load string, k int) error {
	base := x.prevRun
	if k == 0 {
		var err error
		if base, err = x.o.measure(ctx, firstRepeats, 0); err != nil {
			return err
		}
		x.correctness(fmt.Sprintf("%s pair %d, baseline run", load, k+1), base)
		x.collectLimits(load, base)
	}
	var second *result.Run
	if err := x.wallGates(ctx, load, k, 0, base, &second); err != nil {
		return err
	}
	x.collectLimits(load, second)
	x.prevRun = second
	if !x.trial(load, k) {
		return nil
	}
	for _, p := range x.o.Levels {
		var planted *result.Run
		if err := x.wallGates(ctx, load, k, p, base, &planted); err != nil {
			return err
		}
	}
	return nil
}

// wallGates runs the wall gate against base, measuring with p percent
// planted (0: clean), and decides the one-shot gates on its first run, which it
// stores in *first.
func (x *run) wallGates(ctx context.Context, load string, k int, p float64, base *result.Run, first **result.Run) error {
	runs := 0
	var measureErr error
	out, err := wallgate.Sequential(base, func(full bool) (*result.Run, error) {
		repeats := check.MoreRepeats
		if full {
			repeats = firstRepeats
		}
		run, err := x.o.measure(ctx, repeats, p)
		if err == nil && runs == 0 {
			*first = run
			x.correctness(fmt.Sprintf("%s pair %d, %s run", load, k+1, runName(p)), run)
		}
		runs++
		measureErr = err
		return run, err
	}, wallOptions, moreRounds)
	if measureErr != nil {
		return measureErr
	}
	if err != nil {
		return err
	}
	var measured *float64
	if p > 0 {
		measured = pct(slowdown(base, *first))
	}
	if x.wants(GateWall) {
		d := Decision{Gate: GateWall, Load: load, Pct: p, Pair: k + 1, Measured: measured, Runs: runs}
		if w, ok := largestLoss(out.Rows); ok {
			d.Loss = pct(w.Loss)
			d.Detail = fmt.Sprintf("largest loss: %s %+.1f%% (%s)", w.Name, 100*w.Loss, w.Decision)
		}
		if e := out.Err(); e != nil {
			d.Failed, d.Detail = true, e.Error()
		}
		x.decide(d)
	}
	if x.wants(GateCompare) {
		d := Decision{Gate: GateCompare, Load: load, Pct: p, Pair: k + 1, Measured: measured}
		if reg := compare.Runs(base, *first).Regressions(); len(reg) > 0 {
			d.Failed, d.Detail = true, fmt.Sprintf("%d metrics worse, first: %s %s (%s)", len(reg), reg[0].Metric, reg[0].Name, reg[0].Verdict)
		}
		x.decide(d)
	}
	if x.wants(GateRatio) {
		d := Decision{Gate: GateRatio, Load: load, Pct: p, Pair: k + 1, Measured: measured}
		g, err := compare.Gate(base, *first, ratioTol)
		if err != nil {
			return err
		}
		if f := g.Failed(); len(f) > 0 {
			d.Failed, d.Detail = true, fmt.Sprintf("%d ratios, first: %s", len(f), f[0])
		}
		x.decide(d)
	}
	return nil
}

// slowdown is how much slower the measured subject ran in b than in a at
// one goroutine: the medians of its IDs per CPU-second (IDs/s where the
// run has no CPU samples), a over b, less 1.
func slowdown(a, b *result.Run) float64 {
	return perCPU(a)/perCPU(b) - 1
}

func perCPU(run *result.Run) float64 {
	for _, s := range run.Saturate {
		if s.Subject != measured || s.Goroutines != 1 {
			continue
		}
		if len(s.CPUSamples) > 0 {
			return stats.Median(s.CPUSamples)
		}
		return stats.Median(s.Samples)
	}
	return 0
}

// collectLimits keeps run's cost-over-limit ratios for the limits table.
func (x *run) collectLimits(load string, run *result.Run) {
	if run == nil {
		return
	}
	for _, r := range compare.Ratios(run) {
		if !isLimitRatio(r.Name) {
			continue
		}
		if x.limits[load] == nil {
			x.limits[load] = map[string][]float64{}
		}
		x.limits[load][r.Name] = append(x.limits[load][r.Name], r.Value)
	}
}

func runName(p float64) string {
	if p == 0 {
		return "second"
	}
	return fmt.Sprintf("planted %g%%", p)
}

// largestLoss is the row with the largest loss estimate.
func largestLoss(rows []wallgate.Row) (wallgate.Row, bool) {
	var w wallgate.Row
	ok := false
	for _, r := range rows {
		if !math.IsNaN(r.Loss) && (!ok || r.Loss > w.Loss) {
			w, ok = r, true
		}
	}
	return w, ok
}
