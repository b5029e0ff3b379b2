package compare

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// DefaultTolerance is how much worse a ratio may get before the gate
// fails: 25% of what it stands for, so a tick fill or a scaling may fall
// to 0.75× the baseline's and a cost (ns/ID over a limit) may rise to
// 1/0.75 = 1.33× it, both a quarter fewer IDs for the same work. At 15%
// (a cost up 1.18×) the gate failed one run in ten with no code change
// on a 2-core VM with a CPU hog beside it and a load average of 10
// (atomicgen's ns/ID over its limit rose 1.19×, p=0.041); the slowdown
// `loadgen check -inject-regression` injects raises that cost about 1.9×.
const DefaultTolerance = 0.25

// ErrTolerance is wrapped by the error about a tolerance that is not a
// fraction: NaN, infinite, negative, 1 or more. A NaN tolerance would pass
// every ratio (no comparison with NaN is true), and 1 or more would pass a
// ratio that fell to zero.
var ErrTolerance = errors.New("compare: tolerance must be a number more than 0 and less than 1")

// ErrNothingGated is among GateReport.Err's errors when no gated ratio was
// in both runs: a gate that compared nothing must not pass.
var ErrNothingGated = errors.New("compare: the gate compared no ratio (the baseline and the run share none)")

// ErrNoGatedRatio is wrapped by CheckBaseline's error about a run that
// holds no ratio the gate checks: every comparison with it would fail
// with ErrNothingGated, so it is refused before the gate's suite runs.
var ErrNoGatedRatio = errors.New("compare: the run holds no ratio the gate checks")

// CheckBaseline reports whether base can be gated against: it must hold
// at least one gated ratio (see Ratios); the error says what it measured
// instead.
func CheckBaseline(base *result.Run) error {
	for _, r := range Ratios(base) {
		if !r.Informational {
			return nil
		}
	}
	order, _ := collect(base)
	names := make([]string, len(order))
	for i, k := range order {
		names[i] = strings.Replace(k, "\x00", " ", 1)
	}
	return fmt.Errorf("%w (commit %s measured %s)", ErrNoGatedRatio, md.OrDash(base.Revision()), measured(names))
}

// CheckTolerance reports whether tol is a usable tolerance: more than 0
// and less than 1.
func CheckTolerance(tol float64) error {
	if math.IsNaN(tol) || tol <= 0 || tol >= 1 {
		return fmt.Errorf("%w: got %v", ErrTolerance, tol)
	}
	return nil
}

// Ratio is a figure of a run normalised by what the host gave in the same
// run: a quotient of two throughputs measured side by side (a generator's
// cost per ID over that of the physical limit it is built on, its scaling
// over the limit's scaling), or a strict generator's fill of the tick slots it got to run
// in. A faster, slower or busier machine changes both sides alike, so the
// ratio holds where absolute figures do not. A cost ("ns/ID over" a
// limit: 1× is the limit, 1.08× costs 8% more) is LowerIsBetter, as the
// reports and the README print it; for every other ratio higher is
// better. Samples holds the per-repeat ratios where both sides had the
// same number of repeats (nil otherwise); Value is their median, or the
// ratio of the medians when there are no per-repeat ratios.
type Ratio struct {
	Name          string
	Value         float64
	LowerIsBetter bool
	Samples       []float64
	// Informational ratios are reported beside the gated ones but never
	// fail the gate; Why says what makes them depend on the host.
	Informational bool
	Why           string
}

// Subjects the ratios are built from.
const (
	atomicStrict    = "atomicgen/strict"
	atomicMonotonic = "atomicgen/monotonic"
	mutexMonotonic  = "mutexgen/monotonic"
	shardedScaling  = "shardedgen/node-per-shard/monotonic"
)

// Why the informational ratios are not gated; the README quotes these.
const (
	whyMutexVsCAS = "a mutex is not a compare-and-swap: their costs differ by CPU " +
		"(atomic/mutex at G=1 read 1.65 on the baseline's Xeon, 1.36 on a loaded Turin-class VM, one commit)"
	whyContended = "contended: how the scheduler hands a lock or a cache line over differs by core count and load " +
		"(1.18 to 1.83 over ten runs of one commit on a 2-vCPU VM)"
	whyLockHolder = "a contended lock: when the host deschedules the goroutine holding it, the others lose ticks " +
		"they were running in, so a busy host lowers it"
	whyCeiling = "counts the ticks the host did not let the generator run in; the tick fill beside it does not"
)

// Ratios computes a run's host-normalised ratios from its saturate
// results. Gated:
//
//   - "<generator> ns/ID over <limit> @G=1": the cost per ID of each of
//     snowlab's non-strict generators whose work per ID is its limit's
//     (one clock read and one compare-and-swap: atomicgen on the shared
//     word, shardedgen on the calling P's) over that limit subject's
//     (Subject.Limit), per interleaved repeat: the limit's IDs over the
//     generator's, so 1× is the limit and 1.08× is NextID adding 8% to
//     the least any such generator must do (LowerIsBetter).
//   - "sharded scaling @G=n": shardedgen/node-per-shard/monotonic's IDs/s
//     at the largest goroutine count over G=1, divided by the same scaling
//     of limit/per-p: a host that gives fewer cores, or lends one to
//     another process, scales both alike.
//   - "tick fill <subject> @G=n": for each of snowlab's strict generators,
//     the median over repeats of SaturateResult.TickFill: IDs over the
//     sequence space of the (tick, shard) slots they were minted in, so
//     that a tick the host took away counts for nothing.
//
// Reported, not gated (Informational, with Why): mutexgen's ns/ID over
// its limit and atomic over mutex (a mutex's cost relative to a CAS depends on the
// CPU), the contended atomic/mutex pair at the largest G, and each strict
// generator's raw ceiling fraction (IDs/s over the ceiling, which counts
// the ticks the host took away). A ratio whose inputs the run lacks (or
// whose denominator is zero) is left out; peers are never in it.
func Ratios(run *result.Run) []Ratio {
	sat := indexSaturate(run)
	var out ratioList
	out.overLimit(run.Subjects, sat)
	out.scalingOverPerP(sat)
	out.strictFill(run.Subjects, sat)
	out.atomicOverMutex(sat)
	return out
}

// saturateIndex is a run's saturate results by subject and goroutine
// count; of a point the run repeats, the first counts.
type saturateIndex map[string]map[int]*result.SaturateResult

func indexSaturate(run *result.Run) saturateIndex {
	sat := saturateIndex{}
	for i := range run.Saturate {
		r := &run.Saturate[i]
		if sat[r.Subject] == nil {
			sat[r.Subject] = map[int]*result.SaturateResult{}
		}
		if _, dup := sat[r.Subject][r.Goroutines]; !dup {
			sat[r.Subject][r.Goroutines] = r
		}
	}
	return sat
}

// maxG is the largest goroutine count measured for both a and b.
func (sat saturateIndex) maxG(a, b string) int {
	g := 0
	for n := range sat[a] {
		if _, ok := sat[b][n]; ok {
			g = max(g, n)
		}
	}
	return g
}

// ratioList is Ratios' result, in the order Ratios adds its sections.
type ratioList []Ratio

// add appends r if ok; a non-empty why makes it informational.
func (l *ratioList) add(r Ratio, ok bool, why string) {
	if ok {
		r.Informational, r.Why = why != "", why
		*l = append(*l, r)
	}
}

// overLimit adds each non-strict generator's ns/ID over its limit's at
// G=1; mutexgen's is informational.
func (l *ratioList) overLimit(subjects []result.SubjectInfo, sat saturateIndex) {
	for _, s := range subjects {
		if s.Peer || s.Physical || s.Strict || s.Limit == "" || sat[s.Name][1] == nil || sat[s.Limit][1] == nil {
			continue
		}
		why := ""
		if strings.HasPrefix(s.Name, "mutexgen/") {
			why = whyMutexVsCAS
		}
		// The limit's IDs over the generator's: its time per ID over
		// the limit's.
		r, ok := divide(fmt.Sprintf("%s ns/ID over %s @G=1", s.Name, s.Limit), sat[s.Limit][1], sat[s.Name][1])
		r.LowerIsBetter = true
		l.add(r, ok, why)
	}
}

// scalingOverPerP adds shardedgen's scaling over limit/per-p's at the
// largest goroutine count both have.
func (l *ratioList) scalingOverPerP(sat saturateIndex) {
	g := sat.maxG(shardedScaling, subject.LimitPerP)
	if g <= 1 || sat[shardedScaling][1] == nil || sat[subject.LimitPerP][1] == nil {
		return
	}
	r, ok := scaling(fmt.Sprintf("sharded scaling @G=%d", g),
		sat[shardedScaling][g], sat[shardedScaling][1], sat[subject.LimitPerP][g], sat[subject.LimitPerP][1])
	l.add(r, ok, "")
}

// strictFill adds each strict generator's tick fill (gated, but for a
// contended mutex) and raw ceiling fraction (informational) at every
// goroutine count, in increasing order.
func (l *ratioList) strictFill(subjects []result.SubjectInfo, sat saturateIndex) {
	for _, s := range subjects {
		if s.Peer || !s.Strict || sat[s.Name] == nil {
			continue
		}
		for _, g := range slices.Sorted(maps.Keys(sat[s.Name])) {
			res := sat[s.Name][g]
			if len(res.TickFill) > 0 {
				// A contended lock's holder can be descheduled holding it:
				// the other goroutines then lose ticks they were running in.
				why := ""
				if g > 1 && strings.HasPrefix(s.Name, "mutexgen/") {
					why = whyLockHolder
				}
				l.add(Ratio{Name: fmt.Sprintf("tick fill %s @G=%d", s.Name, g),
					Value: stats.Median(res.TickFill), Samples: slices.Clone(res.TickFill)}, true, why)
			}
			if s.CeilingIDs > 0 {
				r := Ratio{Name: fmt.Sprintf("ceiling fraction %s @G=%d", s.Name, g), Value: satMedian(res) / s.CeilingIDs}
				for _, v := range res.Samples {
					r.Samples = append(r.Samples, v/s.CeilingIDs)
				}
				l.add(r, true, whyCeiling)
			}
		}
	}
}

// atomicOverMutex adds the informational atomic/mutex pair: at G=1 and
// at the largest goroutine count both have.
func (l *ratioList) atomicOverMutex(sat saturateIndex) {
	if sat[atomicMonotonic][1] != nil && sat[mutexMonotonic][1] != nil {
		r, ok := divide("atomic/mutex monotonic @G=1", sat[atomicMonotonic][1], sat[mutexMonotonic][1])
		l.add(r, ok, whyMutexVsCAS)
	}
	if g := sat.maxG(atomicMonotonic, mutexMonotonic); g > 1 {
		r, ok := divide(fmt.Sprintf("atomic/mutex monotonic @G=%d", g), sat[atomicMonotonic][g], sat[mutexMonotonic][g])
		l.add(r, ok, whyContended)
	}
}

// scaling is (num at G / num at 1) over (den at G / den at 1), per repeat
// where all four have the same number of repeats, else of the medians.
func scaling(name string, numG, num1, denG, den1 *result.SaturateResult) (Ratio, bool) {
	a, okA := divide(name, numG, num1)
	b, okB := divide(name, denG, den1)
	if !okA || !okB {
		return Ratio{}, false
	}
	r := Ratio{Name: name}
	if n := len(a.Samples); n > 0 && n == len(b.Samples) {
		for i := range n {
			if b.Samples[i] == 0 {
				return r, false
			}
			r.Samples = append(r.Samples, a.Samples[i]/b.Samples[i])
		}
		r.Value = stats.Median(r.Samples)
		return r, true
	}
	if b.Value == 0 || math.IsNaN(b.Value) {
		return r, false
	}
	r.Value = a.Value / b.Value
	return r, true
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
// repeats, else as a ratio of medians. Per repeat it divides IDs per
// CPU-second where both sides have them (SaturateResult.CPUSamples): a
// repeat the host gave less CPU to is then no slower than another.
func divide(name string, num, den *result.SaturateResult) (Ratio, bool) {
	r := Ratio{Name: name}
	ns, ds := num.Samples, den.Samples
	if n := len(ns); n > 0 && len(num.CPUSamples) == n && len(den.CPUSamples) == len(ds) {
		ns, ds = num.CPUSamples, den.CPUSamples
	}
	if n := len(ns); n > 0 && n == len(ds) {
		for i := range n {
			if ds[i] == 0 {
				return r, false
			}
			r.Samples = append(r.Samples, ns[i]/ds[i])
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
	LowerIsBetter    bool    // a cost (Ratio.LowerIsBetter)
	Change           float64 // percent
	P                float64 // NaN where no test was run
	NBase, NNew      int     // per-repeat samples
	Verdict          string
	Fail             bool
	SignificanceUsed bool   // the U test took part in the decision
	Informational    bool   // reported, never gated
	Why              string // why an informational ratio is not gated
}

// GateReport is the regression gate's finding.
type GateReport struct {
	Tolerance           float64
	Alpha               float64
	BaseCommit          string
	NewCommit           string
	BaseHost, NewHost   result.Host
	HostNote            string // how the hosts differ, "" when they do not
	LoadNote            string // how their loads differ (host.LoadDifference), "" when they do not
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
		LoadNote: loadNote(base.Host, new.Host),
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
				Name: b.Name, Base: b.Value, New: math.NaN(), HasBase: true, LowerIsBetter: b.LowerIsBetter,
				Change: math.NaN(), P: math.NaN(), NBase: len(b.Samples),
				Informational: b.Informational, Why: b.Why,
				Verdict: "FAIL: missing from new run", Fail: !b.Informational,
			})
			if b.Informational {
				rep.Rows[len(rep.Rows)-1].Verdict = "info, not gated: missing from new run"
			}
			continue
		}
		row := gateRatio(b, n, tolerance)
		if b.Informational || n.Informational {
			row.Informational, row.Why = true, cmp.Or(n.Why, b.Why)
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
			Name: n.Name, Base: math.NaN(), New: n.Value, HasNew: true, LowerIsBetter: n.LowerIsBetter,
			Change: math.NaN(), P: math.NaN(), NNew: len(n.Samples),
			Informational: n.Informational, Why: n.Why,
			Verdict: "missing from base (not gated)",
		})
	}
	rep.CorrectnessFailures = correctnessFailures(new)
	return rep, nil
}

func gateRatio(b, n Ratio, tolerance float64) GateRow {
	row := GateRow{
		Name: b.Name, Base: b.Value, New: n.Value, HasBase: true, HasNew: true,
		LowerIsBetter: b.LowerIsBetter,
		Change:        pctChange(b.Value, n.Value), P: math.NaN(),
		NBase: len(b.Samples), NNew: len(n.Samples),
	}
	// A quarter (tolerance) fewer IDs for the same work: a fill or a
	// scaling at 0.75× the baseline's, a cost at 1/0.75×.
	bound := b.Value * (1 - tolerance)
	beyond := n.Value < bound
	if b.LowerIsBetter {
		bound = b.Value / (1 - tolerance)
		beyond = n.Value > bound
	}
	delta := fmt.Sprintf("%+.1f%%", row.Change)
	limit := fmt.Sprintf("%+.0f%%", pctChange(b.Value, bound))

	// The U test decides where both sides have per-repeat samples enough
	// to reach alpha; elsewhere the threshold alone does.
	var t test
	canTest := len(b.Samples) > 0 && len(n.Samples) > 0 &&
		minP(len(b.Samples), len(n.Samples)) <= thresholds.CompareAlpha
	ptext := ""
	if len(b.Samples) > 0 && len(n.Samples) > 0 {
		t = analyse(b.Samples, n.Samples)
		row.P = t.cmp.P
		ptext = fmt.Sprintf(" (p=%.3f n=%d+%d)", t.cmp.P, len(b.Samples), len(n.Samples))
	}
	switch {
	case !beyond:
		// Not a failure; say whether the move is real where the samples
		// can tell.
		testable := ptext != "" && !t.tooFew
		switch {
		case testable && (!t.significant() || row.Change == 0):
			row.Verdict = "ok ~"
		case testable && (row.Change > 0) != b.LowerIsBetter:
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
			row.Verdict = fmt.Sprintf("FAIL: %s, worse than %s and significant%s", delta, limit, ptext)
		} else {
			row.Verdict = fmt.Sprintf("ok: %s but not significant%s", delta, ptext)
		}
	default:
		row.Fail = true
		row.Verdict = fmt.Sprintf("FAIL: %s, worse than %s; too few samples to test, threshold alone decides%s", delta, limit, ptext)
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
	ew.Printf("ns/ID over a limit: the generator's time per ID over the limit's, 1× is the limit, lower is better (fails above %.2f× the base); "+
		"every other ratio: higher is better (fails below %.2f× the base)\n", 1/(1-g.Tolerance), 1-g.Tolerance)
	ew.Printf("base: commit %s, host %s\n", md.OrDash(g.BaseCommit), hostLine(g.BaseHost))
	writeLoad(ew, "base: ", g.BaseHost)
	ew.Printf("new:  commit %s, host %s\n", md.OrDash(g.NewCommit), hostLine(g.NewHost))
	writeLoad(ew, "new:  ", g.NewHost)
	writeLoadNote(ew, g.LoadNote)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, ratioText(r.Base, r.HasBase, r.LowerIsBetter),
			ratioText(r.New, r.HasNew, r.LowerIsBetter), change, r.Verdict)
	}
	if len(g.Rows) == 0 {
		fmt.Fprintf(tw, "(no ratios: neither run has the saturate results they need)\t\t\t\t\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var whys []string
	names := map[string][]string{}
	for _, r := range g.Rows {
		if r.Informational && r.Why != "" {
			if names[r.Why] == nil {
				whys = append(whys, r.Why)
			}
			names[r.Why] = append(names[r.Why], r.Name)
		}
	}
	for _, why := range whys {
		ew.Printf("\nnot gated: %s\n  (%s)\n", strings.Join(names[why], ", "), why)
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

// ratioText prints a ratio, a cost as so many times its limit ("1.077×").
func ratioText(v float64, ok, cost bool) string {
	switch {
	case !ok:
		return "missing"
	case cost:
		return fmt.Sprintf("%.4g×", v)
	}
	return fmt.Sprintf("%.4g", v)
}
