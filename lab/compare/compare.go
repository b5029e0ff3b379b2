package compare

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// Outcome classifies one row of a comparison.
type Outcome int

const (
	// NoChange: the test found no significant difference.
	NoChange Outcome = iota
	// Better: a significant change in the good direction.
	Better
	// Worse: a significant change in the bad direction.
	Worse
	// TooFewSamples: there are repeats, but too few for the test to
	// reach significance at the chosen alpha whatever they hold.
	TooFewSamples
	// NoSamples: one value per side (a summary such as a percentile),
	// so the change is reported without a test.
	NoSamples
)

var outcomes = []string{NoChange: "~", Better: "better", Worse: "worse", TooFewSamples: "too few samples", NoSamples: "no samples"}

func (o Outcome) String() string {
	if o >= 0 && int(o) < len(outcomes) {
		return outcomes[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// MarshalText is String, the outcome's name in JSON.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Interval says what the interval of a Stat is.
type Interval int

const (
	// NoInterval: one value (a percentile, a single repeat); Lo and Hi
	// are NaN.
	NoInterval Interval = iota
	// MedianCI: the distribution-free confidence interval of the median
	// at the comparison's level (95%), from order statistics of the
	// values (benchmath's): at least 6 values.
	MedianCI
	// Range: the values' minimum to maximum, where 2 to 5 are too few
	// for a 95% interval of the median. It holds the median with
	// Stat.Confidence (stats.RangeConfidence: 50% for 2 values, 93.75%
	// for the lab's default 5 repeats): a real interval, said for what
	// it is, where benchstat prints "±∞".
	Range
)

var intervals = []string{NoInterval: "none", MedianCI: "median CI", Range: "range"}

func (i Interval) String() string {
	if i >= 0 && int(i) < len(intervals) {
		return intervals[i]
	}
	return fmt.Sprintf("Interval(%d)", int(i))
}

// MarshalText is String, the interval's kind in JSON.
func (i Interval) MarshalText() ([]byte, error) { return []byte(i.String()), nil }

// Stat is one side of a row: the center (median) of its values and the
// interval around it.
type Stat struct {
	Center number `json:"center"`
	Lo     number `json:"lo"` // NaN for NoInterval
	Hi     number `json:"hi"`
	N      int    `json:"n"`
	// Interval says what Lo and Hi are; Confidence is the probability
	// that they hold the median (0 for NoInterval).
	Interval   Interval `json:"interval"`
	Confidence number   `json:"confidence"`
	// CI is the interval's half-width as a percentage of the center,
	// benchstat style ("3%"); "" for NoInterval.
	CI string `json:"-"`
}

// Row is one metric present in both runs.
type Row struct {
	Metric         string  `json:"metric"` // e.g. "saturate IDs/s"
	Name           string  `json:"name"`   // e.g. "atomicgen/strict G=8"
	Unit           string  `json:"unit"`   // "IDs/s" or "ns"
	HigherIsBetter bool    `json:"higher_is_better"`
	Old            Stat    `json:"old"`
	New            Stat    `json:"new"`
	Change         number  `json:"change_pct"` // percent, (new/old - 1) * 100
	P              number  `json:"p"`          // NaN where no test was run
	Outcome        Outcome `json:"outcome"`
	Verdict        string  `json:"verdict"` // what the table prints, e.g. "-50.0% worse (p=0.002 n=6+6)"
}

// Comparison is the metric-by-metric comparison of two runs.
type Comparison struct {
	OldCommit string      `json:"old_commit"`
	NewCommit string      `json:"new_commit"`
	OldHost   result.Host `json:"old_host"`
	NewHost   result.Host `json:"new_host"`
	// HostsDiffer is true when the CPU or GOMAXPROCS differ; HostNote
	// says how. Absolute figures across hosts are not comparable.
	HostsDiffer bool   `json:"hosts_differ"`
	HostNote    string `json:"host_note,omitempty"`
	// LoadNote says how the loads the hosts were under differ
	// (host.LoadDifference, the one rule the reports use), "" when they
	// do not or either is not recorded.
	LoadNote string  `json:"load_note,omitempty"`
	Alpha    float64 `json:"alpha"`
	Rows     []Row   `json:"rows"`
	// OnlyOld and OnlyNew name the metrics measured by one run only;
	// they are not compared.
	OnlyOld []string `json:"only_old,omitempty"`
	OnlyNew []string `json:"only_new,omitempty"`
}

// thresholds are benchmath's defaults (alpha 0.05); statistics are
// computed under benchmath.AssumeNothing (median, Mann-Whitney U).
var thresholds = benchmath.DefaultThresholds

// series is one metric of one run: the values it measured.
type series struct {
	metric, name, unit string
	higherIsBetter     bool
	// summary is true when each result contributes one value (a
	// percentile), false when it contributes its repeats.
	summary bool
	values  []float64
}

func (s *series) key() string { return s.metric + "\x00" + s.name }

// collect lists a run's metrics in the order the run measured them.
func collect(run *result.Run) (order []string, byKey map[string]*series) {
	byKey = map[string]*series{}
	add := func(s series, vals ...float64) {
		k := s.key()
		if old, ok := byKey[k]; ok {
			old.values = append(old.values, vals...)
			return
		}
		s.values = append([]float64(nil), vals...)
		byKey[k] = &s
		order = append(order, k)
	}
	for _, r := range run.Saturate {
		s := series{metric: "saturate IDs/s", name: fmt.Sprintf("%s G=%d", r.Subject, r.Goroutines), unit: "IDs/s", higherIsBetter: true}
		if len(r.Samples) > 0 {
			add(s, r.Samples...)
		} else {
			s.summary = true
			add(s, r.IDsPerSec)
		}
	}
	for _, r := range run.Burst {
		name := fmt.Sprintf("%s %s G=%d N=%d", r.Subject, r.Via, r.Goroutines, r.IDs)
		ms := make([]float64, len(r.MakespanNs))
		for i, v := range r.MakespanNs {
			ms[i] = float64(v)
		}
		if len(ms) > 0 {
			add(series{metric: "burst makespan", name: name, unit: "ns"}, ms...)
		}
		if r.Latency.Count > 0 {
			add(series{metric: "burst p99 latency", name: name, unit: "ns", summary: true}, float64(r.Latency.P99))
			add(series{metric: "burst p99.9 latency", name: name, unit: "ns", summary: true}, float64(r.Latency.P999))
		}
	}
	for _, r := range run.Steady {
		if r.Latency.Count == 0 {
			continue
		}
		name := fmt.Sprintf("%s @%s/s", r.Subject, units.SI(r.TargetRate, 4, true))
		add(series{metric: "steady p99 latency", name: name, unit: "ns", summary: true}, float64(r.Latency.P99))
	}
	return order, byKey
}

// minP is the smallest p-value a two-sided Mann-Whitney U test can give
// samples of sizes n1 and n2 (no ties): 2 / C(n1+n2, n1).
func minP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// minSamples is the fewest samples per side (equal sizes) for which the U
// test can reach alpha; benchmath warns below it.
func minSamples(alpha float64) int {
	for n := 1; n <= 50; n++ {
		if minP(n, n) <= alpha {
			return n
		}
	}
	return 51
}

// test is the benchmath analysis of two sets of values.
type test struct {
	old, new benchmath.Summary
	cmp      benchmath.Comparison
	tooFew   bool // the test cannot reach alpha at these sizes
}

func analyse(oldVals, newVals []float64) test {
	t := thresholds
	so := benchmath.NewSample(append([]float64(nil), oldVals...), &t)
	sn := benchmath.NewSample(append([]float64(nil), newVals...), &t)
	conf := 1 - t.CompareAlpha
	a := benchmath.AssumeNothing
	res := test{old: a.Summary(so, conf), new: a.Summary(sn, conf)}
	if len(oldVals) > 0 && len(newVals) > 0 {
		res.cmp = a.Compare(so, sn)
	} else {
		res.cmp = benchmath.Comparison{P: 1, N1: len(oldVals), N2: len(newVals), Alpha: t.CompareAlpha}
	}
	res.tooFew = minP(len(oldVals), len(newVals)) > t.CompareAlpha
	return res
}

// significant follows benchmath's FormatDelta: a change is reported
// unless P > Alpha.
func (t test) significant() bool { return !t.tooFew && !(t.cmp.P > t.cmp.Alpha) }

// stat is one side's figure: the median with its 95% interval where the
// values allow one, else the range of the values with the confidence it
// gives, else (one value) none.
func stat(s benchmath.Summary, vals []float64) Stat {
	if len(vals) < 2 {
		return Stat{Center: number(s.Center), Lo: number(math.NaN()), Hi: number(math.NaN()), N: len(vals)}
	}
	interval, conf := MedianCI, s.Confidence
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		s.Lo, _, s.Hi = stats.Spread(vals)
		interval, conf = Range, stats.RangeConfidence(len(vals))
	}
	return Stat{Center: number(s.Center), Lo: number(s.Lo), Hi: number(s.Hi), N: len(vals), Interval: interval, Confidence: number(conf),
		CI: s.PctRangeString()}
}

func pctChange(old, new float64) float64 {
	if old == new {
		return 0
	}
	return (new/old - 1) * 100
}

// Runs compares every metric present in both runs.
func Runs(old, new *result.Run) Comparison {
	c := Comparison{
		OldCommit: old.Revision(), NewCommit: new.Revision(),
		OldHost: old.Host, NewHost: new.Host,
		Alpha: thresholds.CompareAlpha,
	}
	c.HostNote = hostDifference(old.Host, new.Host)
	c.HostsDiffer = c.HostNote != ""
	c.LoadNote = host.LoadDifference(old.Host.Load, new.Host.Load)

	oldOrder, oldSeries := collect(old)
	newOrder, newSeries := collect(new)
	for _, k := range oldOrder {
		o := oldSeries[k]
		n, ok := newSeries[k]
		if !ok {
			c.OnlyOld = append(c.OnlyOld, o.metric+" "+o.name)
			continue
		}
		c.Rows = append(c.Rows, compareSeries(o, n))
	}
	for _, k := range newOrder {
		if _, ok := oldSeries[k]; !ok {
			n := newSeries[k]
			c.OnlyNew = append(c.OnlyNew, n.metric+" "+n.name)
		}
	}
	// One section per metric, in a fixed order, each in run order.
	slices.SortStableFunc(c.Rows, func(a, b Row) int {
		return slices.Index(metricOrder, a.Metric) - slices.Index(metricOrder, b.Metric)
	})
	return c
}

// ErrNothingInCommon is wrapped by Comparison.Err when the two runs share
// no metric: a comparison of nothing must not read as "no regression".
var ErrNothingInCommon = errors.New("compare: the runs share no metric")

// Err is nil when the runs share a metric, else ErrNothingInCommon,
// saying what each run measured.
func (c Comparison) Err() error {
	if len(c.Rows) > 0 {
		return nil
	}
	return fmt.Errorf("%w: old (commit %s) measured %s; new (commit %s) measured %s", ErrNothingInCommon,
		md.OrDash(c.OldCommit), measured(c.OnlyOld), md.OrDash(c.NewCommit), measured(c.OnlyNew))
}

// measured sums up a run's metrics ("metric name" each) by metric:
// "saturate IDs/s ×12, steady p99 latency ×3", or "nothing".
func measured(metrics []string) string {
	var parts []string
	for _, m := range metricOrder {
		of := slices.DeleteFunc(slices.Clone(metrics), func(name string) bool { return !strings.HasPrefix(name, m+" ") })
		if len(of) > 0 {
			parts = append(parts, fmt.Sprintf("%s ×%d", m, len(of)))
		}
	}
	if len(parts) == 0 {
		return "nothing (no burst, saturate or steady result)"
	}
	return strings.Join(parts, ", ")
}

// Regressions are the rows that got significantly worse.
func (c Comparison) Regressions() []Row {
	return slices.DeleteFunc(slices.Clone(c.Rows), func(r Row) bool { return r.Outcome != Worse })
}

// metricOrder is the order of the sections of a comparison.
var metricOrder = []string{
	"saturate IDs/s",
	"burst makespan",
	"burst p99 latency",
	"burst p99.9 latency",
	"steady p99 latency",
}

func compareSeries(o, n *series) Row {
	t := analyse(o.values, n.values)
	row := Row{
		Metric: o.metric, Name: o.name, Unit: o.unit, HigherIsBetter: o.higherIsBetter,
		Old: stat(t.old, o.values), New: stat(t.new, n.values),
		Change: number(pctChange(t.old.Center, t.new.Center)),
		P:      number(t.cmp.P),
	}
	delta := fmt.Sprintf("%+.1f%%", row.Change)
	if c := float64(row.Change); math.IsInf(c, 0) || math.IsNaN(c) {
		delta = "?"
	}
	ptext := fmt.Sprintf("p=%.3f n=%d+%d", t.cmp.P, len(o.values), len(n.values))
	switch {
	case len(o.values) == 1 && len(n.values) == 1 && o.summary && n.summary:
		// One percentile per side: no test, and a tail that moved from
		// 1 µs to 1 ms is not "+99900%" of anything; say how many times.
		row.P = number(math.NaN())
		row.Outcome = NoSamples
		row.Verdict = "not tested (one value per side)"
		if q := t.new.Center / t.old.Center; row.Change != 0 && q > 0 && !math.IsInf(q, 0) {
			row.Verdict = fmt.Sprintf("%s, not tested (one value per side)", times(q))
		}
	case t.tooFew:
		row.Outcome = TooFewSamples
		row.Verdict = fmt.Sprintf("~ (%s: too few samples, need >=%d per side for alpha %g)",
			ptext, minSamples(t.cmp.Alpha), t.cmp.Alpha)
	case !t.significant() || row.Change == 0:
		row.Outcome = NoChange
		row.Verdict = fmt.Sprintf("~ (%s)", ptext)
	default:
		if (row.Change > 0) == row.HigherIsBetter {
			row.Outcome = Better
		} else {
			row.Outcome = Worse
		}
		row.Verdict = fmt.Sprintf("%s %s (%s)", delta, row.Outcome, ptext)
	}
	return row
}

// times says how many times larger or smaller new is than old (q =
// new/old): "×1.25", "×0.50"; "×1404" where it moved by orders of
// magnitude.
func times(q float64) string {
	switch {
	case q >= 100:
		return fmt.Sprintf("×%.0f", q)
	case q <= 0.01:
		return fmt.Sprintf("×%.2g", q)
	}
	return fmt.Sprintf("×%.2f", q)
}

// hostDifference says how two hosts differ in ways that make absolute
// figures incomparable, or "" when they do not.
func hostDifference(a, b result.Host) string {
	var d []string
	if a.CPU != b.CPU {
		d = append(d, fmt.Sprintf("CPU %q vs %q", a.CPU, b.CPU))
	}
	if a.GOMAXPROCS != b.GOMAXPROCS {
		d = append(d, fmt.Sprintf("GOMAXPROCS %d vs %d", a.GOMAXPROCS, b.GOMAXPROCS))
	}
	return strings.Join(d, "; ")
}

// hostLine names a host in a comparison: its hostname, then its one line.
func hostLine(h result.Host) string {
	return md.OrDash(h.Hostname) + ", " + h.String()
}

// Write prints the comparison as a benchstat-like table, one section per
// metric.
func (c Comparison) Write(w io.Writer) error {
	ew := md.NewWriter(w)
	// Each host's load on a line of its own, under the line naming the
	// host ("load not recorded" for an older lab's run).
	ew.Printf("old: commit %s, host %s\n     %s\n", md.OrDash(c.OldCommit), hostLine(c.OldHost), c.OldHost.Load)
	ew.Printf("new: commit %s, host %s\n     %s\n", md.OrDash(c.NewCommit), hostLine(c.NewHost), c.NewHost.Load)
	if c.LoadNote != "" {
		// A busy host's steady p99 is its scheduler's, and would read as
		// the code's regression.
		ew.Printf("WARNING: the hosts' loads differ (%s): absolute figures, tail latencies most of all, "+
			"may differ by the host's doing, not the code's\n", c.LoadNote)
	}
	if c.HostsDiffer {
		ew.Printf("NOTE: hosts differ (%s): absolute figures across hosts are not comparable; "+
			"they are printed anyway. The regression gate compares ratios instead.\n", c.HostNote)
	}
	for _, l := range c.legend() {
		ew.Printf("%s\n", l)
	}
	if len(c.Rows) == 0 {
		ew.Printf("\nno metric was measured by both runs\n")
	}
	for _, m := range metricOrder { // one section per metric
		section := slices.DeleteFunc(slices.Clone(c.Rows), func(r Row) bool { return r.Metric != m })
		if len(section) == 0 {
			continue
		}
		dir := "lower is better"
		if section[0].HigherIsBetter {
			dir = "higher is better"
		}
		ew.Printf("\n")
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s (%s)\told\tnew\tvs old\n", section[0].Metric, dir)
		for _, r := range section {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, formatStat(r.Old, r.Unit), formatStat(r.New, r.Unit), r.Verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(c.OnlyOld) > 0 {
		ew.Printf("\nonly in old (not compared): %s\n", strings.Join(c.OnlyOld, ", "))
	}
	if len(c.OnlyNew) > 0 {
		ew.Printf("\nonly in new (not compared): %s\n", strings.Join(c.OnlyNew, ", "))
	}
	return ew.Err()
}

// legend says what the table's figures are, a line each: the median and
// its interval, the test, and what the other kinds of interval its rows
// use mean.
func (c Comparison) legend() []string {
	lines := []string{fmt.Sprintf("median ± its %g%% confidence interval; Mann-Whitney U test, alpha=%g", 100*(1-c.Alpha), c.Alpha)}
	ranges := map[int]bool{}
	single := false
	for _, r := range c.Rows {
		for _, s := range []Stat{r.Old, r.New} {
			switch s.Interval {
			case Range:
				ranges[s.N] = true
			case NoInterval:
				single = true
			}
		}
	}
	if len(ranges) > 0 {
		var ns, held []string
		for _, n := range slices.Backward(slices.Sorted(maps.Keys(ranges))) {
			ns = append(ns, strconv.Itoa(n))
			held = append(held, fmt.Sprintf("%.4g%% at n=%d", 100*stats.RangeConfidence(n), n))
		}
		lines = append(lines, fmt.Sprintf("(range): %s repeats are too few for a %g%% interval: ± spans them, min to max, "+
			"which holds the median with confidence %s", strings.Join(ns, " or "), 100*(1-c.Alpha), strings.Join(held, ", ")))
	}
	if single {
		lines = append(lines, "no ±: one value per side (a percentile), no interval")
	}
	return lines
}

func formatStat(s Stat, unit string) string {
	v := formatValue(float64(s.Center), unit)
	switch s.Interval {
	case MedianCI:
		return v + " ± " + s.CI
	case Range:
		return v + " ± " + s.CI + " (range)"
	}
	return v
}

// formatValue prints a figure to four significant digits: a duration
// when unit is "ns", else with an SI prefix.
func formatValue(v float64, unit string) string {
	if unit == "ns" {
		return units.NsDigits(v, 4)
	}
	return units.SI(v, 4, true)
}
