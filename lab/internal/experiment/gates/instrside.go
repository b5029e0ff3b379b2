package gates

import (
	"context"
	"fmt"
	"math"

	"github.com/snowlab/snowlab/lab/internal/instr"
)

// instrPair is pair k on the instruction side: a clean count compared
// with the previous pair's (pair 1: with one of its own), the same-code
// pair; then, for the first Trials pairs, under each planted slowdown a
// planted count compared with the same baseline.
func (x *run) instrPair(ctx context.Context, load string, k int) error {
	clean := instr.PlantJobs(nil, x.o.Paths, 0, 0)
	a, err := x.prevCount, error(nil)
	if k == 0 {
		if a, err = x.o.count(ctx, x.o.Runner, clean); err != nil {
			return err
		}
	}
	b, err := x.o.count(ctx, x.o.Runner, clean)
	if err != nil {
		return err
	}
	x.prevCount = b
	if err := x.instrDecide(load, k, "", 0, a, b); err != nil {
		return err
	}
	if !x.trial(load, k) {
		return nil
	}
	if x.r.InstrStep == 0 {
		if x.r.InstrStep, err = x.o.step(ctx, a); err != nil {
			return err
		}
	}
	for _, p := range x.o.Levels {
		c, err := x.o.count(ctx, x.o.Runner, instr.PlantJobs(a, x.o.Paths, p, x.r.InstrStep))
		if err != nil {
			return err
		}
		if err := x.instrDecide(load, k, plantSlow, p, a, c); err != nil {
			return err
		}
	}
	return nil
}

// instrShared is the instruction gate on the contention plant, as
// loadgen instr -against runs it on two runners: every subject counted
// in base's runner and in the shared-line runner, the least of three
// counts each.
func (x *run) instrShared(ctx context.Context, load string, k int, subjects []string) error {
	jobs := instr.PlantJobs(nil, instr.Named(subjects), 0, 0)
	r := x.o.Runner
	r.Tries = 3
	r.Target = x.bins.Base
	a, err := x.o.count(ctx, r, jobs)
	if err != nil {
		return err
	}
	r.Target = x.bins.Shared
	b, err := x.o.count(ctx, r, jobs)
	if err != nil {
		return err
	}
	return x.instrDecide(load, k, plantContention, 0, a, b)
}

// instrDecide is the instruction gate on counts a and b under plant (""
// for none): failed where any path of b counts more than the tolerance
// above a's. What a plant measured is the mean change over the paths,
// for the contention plant the largest.
func (x *run) instrDecide(load string, k int, plant string, p float64, a, b *instr.File) error {
	rows, err := instr.Compare(a, b, instrTol)
	if err != nil {
		return err
	}
	d := decision{Gate: gateInstr, Load: load, Plant: plant, Pct: p, Pair: k + 1}
	worst, sum := instr.Row{Change: math.Inf(-1)}, 0.0
	for _, r := range rows {
		sum += r.Change
		if r.Change > worst.Change {
			worst = r
		}
	}
	if n := instr.Worse(rows); n > 0 {
		d.Failed = true
		d.Detail = fmt.Sprintf("%d of %d paths worse than +%.1f%%, most: %s %+.2f%%", n, len(rows), 100*instrTol, worst.Name, 100*worst.Change)
	} else if len(rows) > 0 {
		d.Detail = fmt.Sprintf("largest change %s %+.2f%%", worst.Name, 100*worst.Change)
	}
	switch {
	case len(rows) == 0:
	case plant == plantSlow:
		d.Measured = pct(sum / float64(len(rows)))
	case plant == plantContention:
		d.Measured = pct(worst.Change)
	}
	x.decide(d)
	return nil
}
