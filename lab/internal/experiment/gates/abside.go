package gates

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/snowlab/snowlab/lab/internal/ab"
)

// measured is the subject whose change the A/B side reports for a plant:
// the self-check's (the runner's first).
const measured = "atomicgen/monotonic"

// sizePlants sizes each level's calls plant from instruction counts
// (ab.CountCalls: base and the plant at no and at every call made twice,
// a straight line), once, before the first pair.
func (x *run) sizePlants(ctx context.Context, progress func(string)) error {
	progress("gates: sizing the planted slowdowns from instruction counts under cachegrind")
	var err error
	count := func(bin string, args ...string) (float64, error) { return x.o.abCount(ctx, bin, measured, args...) }
	if x.line, err = ab.CountCalls(count, x.bins.Base, x.bins.Calls); err != nil {
		return err
	}
	for _, p := range x.o.Levels {
		q := x.line.Q(p)
		x.r.Planted = append(x.r.Planted, plantedLevel{Pct: p, Q: q, Instr: 100 * x.line.Change(q)})
	}
	return nil
}

// abPair is pair k on the A/B side: loadgen ab on base against itself
// (two processes of one binary: the same code); then, for the first
// Trials pairs, each planted level and the contention plant as head.
func (x *run) abPair(ctx context.Context, load string, k int, progress func(string)) error {
	res, err := x.abGate(ctx, load, k, "", 0, x.bins.Base, nil)
	if err != nil {
		return err
	}
	if !x.trial(load, k) {
		return nil
	}
	for _, p := range x.r.Planted {
		progress(fmt.Sprintf("gates: %s pair %d: ab on a planted %g%%", load, k+1, p.Pct))
		if _, err := x.abGate(ctx, load, k, plantSlow, p.Pct, x.bins.Calls, []string{"-plant-calls", fmt.Sprint(p.Q)}); err != nil {
			return err
		}
	}
	progress(fmt.Sprintf("gates: %s pair %d: ab on the contention plant", load, k+1))
	if _, err := x.abGate(ctx, load, k, plantContention, 0, x.bins.Shared, nil); err != nil {
		return err
	}
	if x.wants(gateInstr) {
		return x.instrShared(ctx, load, k, res.Subjects)
	}
	return nil
}

// abGate is one loadgen ab run, base against head (with args), decided.
func (x *run) abGate(ctx context.Context, load string, k int, plant string, p float64, head string, args []string) (*ab.Result, error) {
	cfg := x.o.AB
	cfg.Base, cfg.Head, cfg.HeadArgs = x.bins.Base, head, args
	cfg.Seed = uint64(len(x.r.Decisions)+1)*0x9e3779b97f4a7c15 ^ uint64(k)
	res, err := x.o.abRun(ctx, cfg)
	if err != nil {
		return nil, err
	}
	for _, f := range res.Failures {
		x.r.Failures = append(x.r.Failures, fmt.Sprintf("%s pair %d, ab %s: %s", load, k+1, plantText(plant, p), f))
	}
	d := decision{Gate: gateAB, Load: load, Plant: plant, Pct: p, Pair: k + 1, Failed: res.Err() != nil}
	if w, ok := worst(res.Rows); ok {
		d.Detail = fmt.Sprintf("largest change: %s %+.1f%% (%s)", w.Workload, 100*w.Change, w.Decision)
	}
	if e := res.Err(); e != nil {
		d.Detail = e.Error()
	}
	switch plant {
	case "":
		d.Largest1, d.LargestG = largest(res.Rows, true), largest(res.Rows, false)
	case plantSlow:
		d.Measured = pct(change(res.Rows, measured, 1))
	case plantContention:
		// Caught where a workload at GOMAXPROCS is DIFFERENT and worse:
		// the exchange is a locked instruction, dearer than a plain store
		// at G=1 too, which the gate may fail first; G1 keeps what it
		// read there.
		gp := max(res.GOMAXPROCS, 2)
		d.Measured, d.G1 = pct(change(res.Rows, measured, gp)), pct(change(res.Rows, measured, 1))
		d.Failed = false
		for _, r := range res.Rows {
			if r.Workload.G == gp && r.Worse {
				d.Failed = true
				d.Detail = fmt.Sprintf("caught at G=%d: %s %+.1f%%; the gate: %v", gp, r.Workload, 100*r.Change, res.Err())
				break
			}
		}
	}
	x.decide(d)
	return res, nil
}

func plantText(plant string, p float64) string {
	switch plant {
	case plantSlow:
		return fmt.Sprintf("planted %g%%", p)
	case plantContention:
		return "contention plant"
	}
	return "same code"
}

// worst is the row with the largest change, of those with one.
func worst(rows []ab.Row) (ab.Row, bool) {
	rows = slices.DeleteFunc(slices.Clone(rows), func(r ab.Row) bool { return math.IsNaN(float64(r.Change)) })
	if len(rows) == 0 {
		return ab.Row{}, false
	}
	return slices.MaxFunc(rows, func(a, b ab.Row) int { return cmp.Compare(a.Change, b.Change) }), true
}

// largest is the largest |change| of the rows at G=1 (one) or above,
// percent, of those with an interval (enough pairs for one: a workload
// whose goroutines seldom ran side by side may have two); nil where there
// is none.
func largest(rows []ab.Row, one bool) *float64 {
	var v []float64
	for _, r := range rows {
		if (r.Workload.G == 1) == one && !math.IsNaN(float64(r.Change)) && !math.IsInf(float64(r.ChangeLo), 0) && !math.IsInf(float64(r.ChangeHi), 0) {
			v = append(v, math.Abs(float64(r.Change)))
		}
	}
	if len(v) == 0 {
		return nil
	}
	return pct(slices.Max(v))
}

// change is the row of subject at g's change, NaN where there is none.
func change(rows []ab.Row, subject string, g int) float64 {
	if i := slices.IndexFunc(rows, func(r ab.Row) bool { return r.Workload == ab.Workload{Subject: subject, G: g} }); i >= 0 {
		return float64(rows[i].Change)
	}
	return math.NaN()
}
