package wallgate

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/result"
	"golang.org/x/perf/benchmath"
)

// Sentinels; every error the package returns wraps one (errors.Is).
var (
	// ErrOptions is an alpha or minimum effect outside (0, 1).
	ErrOptions = errors.New("wallgate: bad option")
	// ErrNothingTested is two files that share no gated ratio.
	ErrNothingTested = errors.New("wallgate: the two files share no gated ratio")
)

// Defaults. Alpha is the family-wise error rate Holm's correction holds
// over all the ratios together. MinEffect is compare.DefaultTolerance,
// 25% fewer IDs for the same work: with no code change beside a CPU hog
// atomicgen's cost over its limit rose 1.19× (lab/compare measured it),
// and the per-repeat contended ratios of the committed baseline spread
// from 0.84× to 1.18× around their median, so an effect smaller than
// that cannot be told from the host on a shared 2-core VM.
const (
	DefaultAlpha     = 0.05
	DefaultMinEffect = compare.DefaultTolerance
)

// Decision is a ratio's verdict.
type Decision string

// The decisions.
const (
	Different Decision = "DIFFERENT"
	Same      Decision = "SAME"
	Unknown   Decision = "UNKNOWN"
)

// Options are the gate's thresholds; zero fields take the defaults.
type Options struct {
	Alpha     float64
	MinEffect float64 // a fraction: 0.25 is a quarter fewer IDs for the same work
}

func (o Options) withDefaults() (Options, error) {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.MinEffect == 0 {
		o.MinEffect = DefaultMinEffect
	}
	for _, v := range []float64{o.Alpha, o.MinEffect} {
		if math.IsNaN(v) || v <= 0 || v >= 1 {
			return o, fmt.Errorf("%w: %v: want a fraction between 0 and 1", ErrOptions, v)
		}
	}
	return o, nil
}

// Row is one gated ratio's finding. Loss is how many fewer IDs the new
// run gets for the same work, as a fraction (Hodges-Lehmann estimate;
// negative: more), LossLo and LossHi its interval at 1-Alpha.
type Row struct {
	Name                 string
	Contention           bool
	Base, New            float64 // medians
	NBase, NNew          int
	Loss, LossLo, LossHi float64
	P, PHolm             float64 // NaN where no test could run
	Decision             Decision
	Worse                bool // Different and Loss > 0
	Why                  string
}

// Report is the gate's finding on two runs.
type Report struct {
	Options
	BaseCommit, NewCommit string
	HostNote, LoadNote    string
	Rows                  []Row
	CorrectnessFailures   []string
}

// Failed are the rows DIFFERENT and worse.
func (r Report) Failed() []Row {
	var out []Row
	for _, row := range r.Rows {
		if row.Worse {
			out = append(out, row)
		}
	}
	return out
}

// Err says why the gate fails; nil when it passes.
func (r Report) Err() error {
	var errs []error
	if f := r.Failed(); len(f) > 0 {
		names := make([]string, len(f))
		for i, row := range f {
			names[i] = row.Name
		}
		errs = append(errs, fmt.Errorf("%d ratio(s) DIFFERENT and worse: %s", len(f), strings.Join(names, ", ")))
	}
	if n := len(r.CorrectnessFailures); n > 0 {
		errs = append(errs, fmt.Errorf("%d correctness failure(s) in the new run", n))
	}
	if len(r.Rows) == 0 {
		errs = append(errs, ErrNothingTested)
	}
	return errors.Join(errs...)
}

// Decide gates new against base.
func Decide(base, new *result.Run, o Options) (Report, error) { return decideOnly(base, new, o, nil) }

// decideOnly is Decide over the ratios only names (all where nil): Holm's
// correction counts those alone.
func decideOnly(base, new *result.Run, o Options, only map[string]bool) (Report, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Report{}, err
	}
	cg, err := compare.Gate(base, new, 0)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Options: o, BaseCommit: base.Revision(), NewCommit: new.Revision(),
		HostNote: cg.HostNote, LoadNote: cg.LoadNote, CorrectnessFailures: cg.CorrectnessFailures}
	newBy := map[string]ratio{}
	for _, r := range gated(new) {
		newBy[r.Name] = r
	}
	var ps []float64
	for _, b := range gated(base) {
		n, ok := newBy[b.Name]
		if !ok || (only != nil && !only[b.Name]) {
			continue
		}
		row := measure(b, n, o.Alpha)
		rep.Rows = append(rep.Rows, row)
		ps = append(ps, row.P)
	}
	for i, p := range holm(ps) {
		rep.Rows[i].PHolm = p
		decide(&rep.Rows[i], o)
	}
	return rep, nil
}

// ratio is a gated ratio with its direction.
type ratio struct {
	compare.Ratio
	contention bool
}

// gated are run's gated ratios: lab/compare's, and the contended costs.
func gated(run *result.Run) []ratio {
	var out []ratio
	for _, r := range compare.Ratios(run) {
		if !r.Informational {
			out = append(out, ratio{Ratio: r})
		}
	}
	return append(out, contended(run)...)
}

// measure fills a row's figures: medians, the Hodges-Lehmann loss and its
// interval on the log scale, and the U test's p.
func measure(b, n ratio, alpha float64) Row {
	row := Row{Name: b.Name, Contention: b.contention, Base: b.Value, New: n.Value,
		NBase: len(b.Samples), NNew: len(n.Samples), P: math.NaN(), PHolm: math.NaN()}
	// good turns a ratio into "IDs for the same work", higher better.
	good := func(v float64) float64 {
		if b.LowerIsBetter {
			return -math.Log(v)
		}
		return math.Log(v)
	}
	logs := func(vs []float64) []float64 {
		out := make([]float64, 0, len(vs))
		for _, v := range vs {
			if v > 0 && !math.IsInf(v, 0) {
				out = append(out, good(v))
			}
		}
		return out
	}
	lb, ln := logs(b.Samples), logs(n.Samples)
	if len(lb) < 2 || len(ln) < 2 {
		row.Loss, row.LossLo, row.LossHi = math.NaN(), math.NaN(), math.NaN()
		row.Why = "fewer than 2 repeats on a side: no test"
		return row
	}
	est, lo, hi := shift(lb, ln, alpha)
	// A shift s in log IDs is a loss of 1 - e^s; the interval flips.
	row.Loss, row.LossLo, row.LossHi = -math.Expm1(est), -math.Expm1(hi), -math.Expm1(lo)
	th := benchmath.DefaultThresholds
	th.CompareAlpha = alpha
	row.P = benchmath.AssumeNothing.Compare(benchmath.NewSample(lb, &th), benchmath.NewSample(ln, &th)).P
	return row
}

// decide sets a measured row's decision from its Holm-adjusted p, its
// loss and interval.
func decide(row *Row, o Options) {
	switch {
	case math.IsNaN(row.PHolm):
		row.Decision = Unknown
	case row.PHolm <= o.Alpha && math.Abs(row.Loss) >= o.MinEffect:
		row.Decision, row.Worse = Different, row.Loss > 0
		row.Why = fmt.Sprintf("significant after Holm (p=%.3g) and beyond the %.0f%% minimum effect", row.PHolm, 100*o.MinEffect)
	case row.LossLo > -o.MinEffect && row.LossHi < o.MinEffect:
		row.Decision = Same
		row.Why = fmt.Sprintf("the interval lies within ±%.0f%%", 100*o.MinEffect)
	default:
		row.Decision = Unknown
		row.Why = "neither shown different nor within the minimum effect: more repeats would tell"
	}
}
