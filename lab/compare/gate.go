package compare

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/snowlab/snowlab/lab/host"
	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// DefaultTolerance is how much worse a ratio may get before the gate
// fails: 15%.
const DefaultTolerance = 0.15

// ErrTolerance is wrapped by the error about a tolerance that is not a
// fraction: NaN, infinite, negative, 1 or more. A NaN tolerance would pass
// every ratio (no comparison with NaN is true), and 1 or more would pass a
// ratio that fell to zero.
var ErrTolerance = errors.New("compare: tolerance must be a number more than 0 and less than 1")

// ErrNothingGated is among GateReport.Err's errors when no gated ratio was
// in both runs: a gate that compared nothing must not pass.
var ErrNothingGated = errors.New("compare: the gate compared no ratio (the baseline and the run share none)")

// CheckTolerance reports whether tol is a usable tolerance: more than 0
// and less than 1.
func CheckTolerance(tol float64) error {
	if math.IsNaN(tol) || tol <= 0 || tol >= 1 {
		return fmt.Errorf("%w: got %v", ErrTolerance, tol)
	}
	return nil
}

// Ratio is a figure of a run that holds across machines: a quotient of two
// throughputs measured in the same run on the same host, so that a faster
// or slower machine changes both sides alike. Higher is better for every
// ratio. Samples holds the per-repeat ratios where both sides had the same
// number of repeats (nil otherwise); Value is their median, or the ratio
// of the medians when there are no per-repeat ratios.
type Ratio struct {
	Name    string
	Value   float64
	Samples []float64
	// Informational ratios are reported beside the gated ones but never
	// fail the gate: they are too noisy on small hosts to gate honestly.
	Informational bool
}

// Subjects the ratios are built from.
const (
	atomicStrict    = "atomicgen/strict"
	mutexStrict     = "mutexgen/strict"
	atomicMonotonic = "atomicgen/monotonic"
	mutexMonotonic  = "mutexgen/monotonic"
	shardedScaling  = "shardedgen/node-per-shard/monotonic"

	ceilingPrefix = "ceiling fraction "
)

// Ratios computes the cross-machine ratios from a run's saturate results:
//
//   - "atomic/mutex strict @G=1" and "@G=max": IDs/s of atomicgen/strict
//     over mutexgen/strict with one goroutine and at the largest goroutine
//     count measured for both. Both sit at the ceiling, so ~1.
//   - "atomic/mutex monotonic @G=1" and "@G=max": the same for the
//     monotonic pair, where the lock-free generator should win; the
//     contended one is informational (see below).
//   - "sharded scaling": shardedgen/node-per-shard/monotonic IDs/s at its
//     largest goroutine count over G=1.
//   - "ceiling fraction <subject> @G=<n>": IDs/s over the subject's
//     CeilingIDs, for each strict subject with a ceiling, at every
//     goroutine count.
//
// A ratio whose inputs the run lacks (or whose denominator is zero) is
// left out.
func Ratios(run *result.Run) []Ratio {
	sat := map[string]map[int]*result.SaturateResult{}
	for i := range run.Saturate {
		r := &run.Saturate[i]
		if sat[r.Subject] == nil {
			sat[r.Subject] = map[int]*result.SaturateResult{}
		}
		if _, dup := sat[r.Subject][r.Goroutines]; !dup {
			sat[r.Subject][r.Goroutines] = r
		}
	}

	var out []Ratio
	// pair divides num by den at one goroutine count: 1, or the largest
	// measured for both (maxG).
	pair := func(name, num, den string, maxG, info bool) {
		g := 0
		for n := range sat[num] {
			if _, ok := sat[den][n]; ok && (n > g && maxG || n == 1 && !maxG) {
				g = n
			}
		}
		if g == 0 {
			return
		}
		if r, ok := divide(name, sat[num][g], sat[den][g]); ok {
			r.Informational = info
			out = append(out, r)
		}
	}
	pair("atomic/mutex strict @G=1", atomicStrict, mutexStrict, false, false)
	pair("atomic/mutex monotonic @G=1", atomicMonotonic, mutexMonotonic, false, false)
	pair("atomic/mutex strict @G=max", atomicStrict, mutexStrict, true, false)
	// The contended mutex swings between runs with how the scheduler
	// hands the lock over: on a 2-vCPU VM this ratio measured 1.18 to
	// 1.83 over ten runs of one commit. It is reported, not gated.
	pair("atomic/mutex monotonic @G=max", atomicMonotonic, mutexMonotonic, true, true)

	if byG := sat[shardedScaling]; byG[1] != nil {
		g := 1
		for n := range byG {
			g = max(g, n)
		}
		if g > 1 {
			if r, ok := divide("sharded scaling", byG[g], byG[1]); ok {
				out = append(out, r)
			}
		}
	}

	for _, s := range run.Subjects {
		if !s.Strict || s.CeilingIDs <= 0 || sat[s.Name] == nil {
			continue
		}
		gs := make([]int, 0, len(sat[s.Name]))
		for g := range sat[s.Name] {
			gs = append(gs, g)
		}
		slices.Sort(gs)
		for _, g := range gs {
			r := sat[s.Name][g]
			ratio := Ratio{Name: fmt.Sprintf("%s%s @G=%d", ceilingPrefix, s.Name, g)}
			for _, v := range r.Samples {
				ratio.Samples = append(ratio.Samples, v/s.CeilingIDs)
			}
			ratio.Value = satMedian(r) / s.CeilingIDs
			out = append(out, ratio)
		}
	}
	return out
}

// satMedian is the median of a result's samples, or IDsPerSec where it
// has none.
func satMedian(r *result.SaturateResult) float64 {
	if len(r.Samples) == 0 {
		return r.IDsPerSec
	}
	return stats.Median(r.Samples)
}

// divide builds num/den per repeat where both have the same number of
// repeats, else as a ratio of medians.
func divide(name string, num, den *result.SaturateResult) (Ratio, bool) {
	r := Ratio{Name: name}
	if n := len(num.Samples); n > 0 && n == len(den.Samples) {
		for i := range n {
			if den.Samples[i] == 0 {
				return r, false
			}
			r.Samples = append(r.Samples, num.Samples[i]/den.Samples[i])
		}
		r.Value = stats.Median(r.Samples)
		return r, true
	}
	d := satMedian(den)
	if d == 0 || math.IsNaN(d) {
		return r, false
	}
	r.Value = satMedian(num) / d
	return r, true
}

// GateRow is the gate's verdict on one ratio.
type GateRow struct {
	Name             string
	Base, New        float64 // NaN where the side lacks the ratio
	HasBase, HasNew  bool
	Change           float64 // percent
	P                float64 // NaN where no test was run
	NBase, NNew      int     // per-repeat samples
	Verdict          string
	Fail             bool
	CeilingFraction  bool
	SignificanceUsed bool // the U test took part in the decision
	Informational    bool // reported, never gated
}

// GateReport is the regression gate's finding.
type GateReport struct {
	Tolerance           float64
	Alpha               float64
	BaseCommit          string
	NewCommit           string
	BaseHost, NewHost   host.Fingerprint
	HostNote            string // how the hosts differ, "" when they do not
	Rows                []GateRow
	CorrectnessFailures []string // what the new run got wrong
}

// OK reports whether the gate passes: at least one ratio was compared,
// no ratio failed and the new run has no correctness failure.
func (g GateReport) OK() bool { return g.Err() == nil }

// Err says why the gate fails, nil when it passes.
func (g GateReport) Err() error {
	var errs []error
	if f := g.Failed(); len(f) > 0 {
		errs = append(errs, fmt.Errorf("%d ratio(s) failed: %s", len(f), strings.Join(f, ", ")))
	}
	if n := len(g.CorrectnessFailures); n > 0 {
		errs = append(errs, fmt.Errorf("%d correctness failure(s)", n))
	}
	if g.Compared() == 0 {
		errs = append(errs, ErrNothingGated)
	}
	return errors.Join(errs...)
}

// Compared counts the gated ratios present in both runs: the ones the
// verdict rests on. Informational ratios do not count.
func (g GateReport) Compared() int {
	n := 0
	for _, r := range g.Rows {
		if r.HasBase && r.HasNew && !r.Informational {
			n++
		}
	}
	return n
}

// Failed names the ratios that failed.
func (g GateReport) Failed() []string {
	var f []string
	for _, r := range g.Rows {
		if r.Fail {
			f = append(f, r.Name)
		}
	}
	return f
}

// Gate compares the new run's ratios with the baseline's. A ratio fails
// when it is worse than the baseline by more than tolerance (0 means
// DefaultTolerance; anything else outside (0, 1) is refused with
// ErrTolerance) and, where both sides have enough per-repeat
// samples for the U test, the difference is significant; a ceiling
// fraction fails on the threshold alone. A ratio the baseline has and the
// new run lacks fails; one only the new run has is reported. Any
// correctness failure in the new run fails the gate. Absolute figures are
// never compared, so a baseline from another machine is fine. A gate
// that finds no gated ratio in both runs fails (GateReport.OK), whatever
// else it finds.
func Gate(base, new *result.Run, tolerance float64) (GateReport, error) {
	if tolerance == 0 {
		tolerance = DefaultTolerance
	}
	if err := CheckTolerance(tolerance); err != nil {
		return GateReport{}, err
	}
	rep := GateReport{
		Tolerance:  tolerance,
		Alpha:      thresholds.CompareAlpha,
		BaseCommit: base.Revision(), NewCommit: new.Revision(),
		BaseHost: base.Host, NewHost: new.Host,
		HostNote: hostDifference(base.Host, new.Host),
	}
	baseRatios, newRatios := Ratios(base), Ratios(new)
	newByName := map[string]Ratio{}
	for _, r := range newRatios {
		newByName[r.Name] = r
	}
	seen := map[string]bool{}
	for _, b := range baseRatios {
		seen[b.Name] = true
		n, ok := newByName[b.Name]
		if !ok {
			rep.Rows = append(rep.Rows, GateRow{
				Name: b.Name, Base: b.Value, New: math.NaN(), HasBase: true,
				Change: math.NaN(), P: math.NaN(), NBase: len(b.Samples),
				CeilingFraction: strings.HasPrefix(b.Name, ceilingPrefix),
				Verdict:         "FAIL: missing from new run", Fail: true,
			})
			continue
		}
		row := gateRatio(b, n, tolerance)
		if b.Informational {
			row.Informational = true
			row.Fail = false
			row.Verdict = "info, not gated: " + strings.TrimPrefix(row.Verdict, "FAIL: ")
		}
		rep.Rows = append(rep.Rows, row)
	}
	for _, n := range newRatios {
		if seen[n.Name] {
			continue
		}
		rep.Rows = append(rep.Rows, GateRow{
			Name: n.Name, Base: math.NaN(), New: n.Value, HasNew: true,
			Change: math.NaN(), P: math.NaN(), NNew: len(n.Samples),
			CeilingFraction: strings.HasPrefix(n.Name, ceilingPrefix),
			Verdict:         "missing from base (not gated)",
		})
	}
	rep.CorrectnessFailures = correctnessFailures(new)
	return rep, nil
}

func gateRatio(b, n Ratio, tolerance float64) GateRow {
	row := GateRow{
		Name: b.Name, Base: b.Value, New: n.Value, HasBase: true, HasNew: true,
		Change: pctChange(b.Value, n.Value), P: math.NaN(),
		NBase: len(b.Samples), NNew: len(n.Samples),
		CeilingFraction: strings.HasPrefix(b.Name, ceilingPrefix),
	}
	floor := b.Value * (1 - tolerance)
	beyond := n.Value < floor
	delta := fmt.Sprintf("%+.1f%%", row.Change)

	// The U test decides only where both sides have per-repeat samples
	// enough to reach alpha; ceiling fractions go by the threshold alone.
	var t test
	canTest := !row.CeilingFraction && len(b.Samples) > 0 && len(n.Samples) > 0 &&
		minP(len(b.Samples), len(n.Samples)) <= thresholds.CompareAlpha
	ptext := ""
	if len(b.Samples) > 0 && len(n.Samples) > 0 {
		t = analyse(b.Samples, n.Samples)
		row.P = t.cmp.P
		ptext = fmt.Sprintf(" (p=%.3f n=%d+%d)", t.cmp.P, len(b.Samples), len(n.Samples))
	}
	limit := fmt.Sprintf("%.0f%%", 100*tolerance)
	switch {
	case !beyond:
		// Not a failure; say whether the move is real where the samples
		// can tell (ceiling fractions included, for the reader).
		testable := ptext != "" && !t.tooFew
		switch {
		case testable && (!t.significant() || row.Change == 0):
			row.Verdict = "ok ~"
		case testable && row.Change > 0:
			row.Verdict = "ok " + delta + " better"
		case testable:
			row.Verdict = "ok " + delta + " worse, within " + limit
		default:
			row.Verdict = "ok " + delta
		}
		row.Verdict += ptext
	case canTest:
		row.SignificanceUsed = true
		if t.significant() {
			row.Fail = true
			row.Verdict = fmt.Sprintf("FAIL: %s, worse than -%s and significant%s", delta, limit, ptext)
		} else {
			row.Verdict = fmt.Sprintf("ok: %s but not significant%s", delta, ptext)
		}
	default:
		row.Fail = true
		why := "below base×(1-tolerance)"
		if !row.CeilingFraction {
			why = "worse than -" + limit + "; too few samples to test, threshold alone decides"
		}
		row.Verdict = fmt.Sprintf("FAIL: %s, %s%s", delta, why, ptext)
	}
	return row
}

// correctnessFailures lists everything the run got wrong: its recorded
// failures and every check that is not OK.
func correctnessFailures(run *result.Run) []string {
	f := slices.Clone(run.Failures)
	check := func(what string, c result.Check) {
		if !c.OK() {
			f = append(f, what+": "+c.String())
		}
	}
	for _, r := range run.Burst {
		check(fmt.Sprintf("burst %s %s G=%d", r.Subject, r.Via, r.Goroutines), r.Check)
	}
	for _, r := range run.Saturate {
		check(fmt.Sprintf("saturate %s G=%d", r.Subject, r.Goroutines), r.Check)
	}
	for _, r := range run.Steady {
		check(fmt.Sprintf("steady %s @%s/s", r.Subject, units.SI(r.TargetRate, 4, true)), r.Check)
	}
	return f
}

// Write prints the gate's report: every ratio with base, new, change and
// verdict, the correctness findings, and the overall result.
func (g GateReport) Write(w io.Writer) error {
	ew := md.NewWriter(w)
	ew.Printf("regression gate: ratios only (never absolute figures); tolerance %.0f%%, alpha %g\n", 100*g.Tolerance, g.Alpha)
	ew.Printf("base: commit %s, host %s\n", md.OrDash(g.BaseCommit), hostLine(g.BaseHost))
	ew.Printf("new:  commit %s, host %s\n", md.OrDash(g.NewCommit), hostLine(g.NewHost))
	if g.HostNote != "" {
		ew.Printf("note: hosts differ (%s); the ratios are meant to hold across hosts\n", g.HostNote)
	}
	ew.Printf("\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ratio\tbase\tnew\tchange\tverdict\n")
	for _, r := range g.Rows {
		change := "-"
		if !math.IsNaN(r.Change) && !math.IsInf(r.Change, 0) {
			change = fmt.Sprintf("%+.1f%%", r.Change)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, ratioText(r.Base, r.HasBase), ratioText(r.New, r.HasNew), change, r.Verdict)
	}
	if len(g.Rows) == 0 {
		fmt.Fprintf(tw, "(no ratios: neither run has the saturate results they need)\t\t\t\t\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ew.Printf("\n")
	if len(g.CorrectnessFailures) == 0 {
		ew.Printf("correctness: ok\n")
	} else {
		ew.Printf("correctness: FAIL (%d)\n", len(g.CorrectnessFailures))
		for _, f := range g.CorrectnessFailures {
			ew.Printf("  %s\n", f)
		}
	}
	if g.OK() {
		ew.Printf("gate: PASS\n")
	} else {
		var why []string
		if n := len(g.Failed()); n > 0 {
			why = append(why, fmt.Sprintf("%d ratio(s): %s", n, strings.Join(g.Failed(), ", ")))
		}
		if n := len(g.CorrectnessFailures); n > 0 {
			why = append(why, fmt.Sprintf("%d correctness failure(s)", n))
		}
		if g.Compared() == 0 {
			why = append(why, ErrNothingGated.Error())
		}
		ew.Printf("gate: FAIL (%s)\n", strings.Join(why, "; "))
	}
	return ew.Err()
}

func ratioText(v float64, ok bool) string {
	if !ok {
		return "missing"
	}
	return fmt.Sprintf("%.4g", v)
}
