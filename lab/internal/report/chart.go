package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// chartSpec is one chart of a report: its file name, a text alternative,
// and the chart.
type chartSpec struct {
	name, alt string
	chart     *plot.Chart
}

// The charts of a run, those it has data for, each in the section it
// illustrates (newDocument) and saved as an SVG file
// (Document.writeCharts):
//
//   - saturate.svg: IDs/s against goroutines, one line per subject, with a
//     thin dashed line beneath them at each strict ceiling; when the run
//     has more subjects than one panel draws (plot.MaxSeries), small
//     multiples instead, one per group of subjects (saturate-strict.svg,
//     saturate-not-strict.svg, saturate-peers.svg), and the subjects far
//     slower or faster than the rest (plot.Panels) on an axis of their
//     own (saturate-far.svg);
//   - latency.svg: per-call latency percentiles of the bursts via NextID,
//     one line per subject over the percentile axis, in the same groups
//     (latency-strict.svg, ...) when there are more than a panel draws;
//   - makespan.svg: burst makespans (median bar, min–max whisker) with the
//     layout's floor;
//   - fairness.svg: the deviation of the goroutines' shares in the
//     saturate sweep against goroutines, with the threshold flagged, in
//     the saturate charts' groups (fairness-strict.svg, ...) when there are
//     more than a panel draws.
//
// A chart the run has no data for is skipped: no file and no error.

// The groups of subjects the charts draw apart when there are more than
// one panel holds.
const (
	groupStrict    = "strict"
	groupNotStrict = "not-strict"
	groupPeers     = "peers"
	groupFar       = "far"
)

// groupTitles name each group in a panel's title.
var groupTitles = map[string]string{
	groupStrict:    "strict generators",
	groupNotStrict: "generators that are not strict, and the physical limits",
	groupPeers:     "peers",
	groupFar:       "far from the rest, on an axis of their own",
}

// groupOf is the group a subject is drawn in: peers, snowlab's strict
// generators, and the rest of its own with the physical limits they are
// read against.
func groupOf(run *result.Run, name string) string {
	info, _ := subjectInfo(run, name)
	switch {
	case info.Peer:
		return groupPeers
	case info.Strict && !info.Physical:
		return groupStrict
	}
	return groupNotStrict
}

// chartPanel is one panel of a chart: its file name, what its title adds
// ("" for a chart of one panel) and the subjects it draws.
type chartPanel struct {
	file, what string
	names      []string
}

// panelsOf lays the subjects names out as the panels of the chart base
// (its file name without .svg): all on one when they fit on one and none
// is an outlier, else by group (groupOf), the outliers by value (nil: no
// outlier rule) on a panel of their own.
func panelsOf(run *result.Run, base string, names []string, value func(string) float64) []chartPanel {
	items := make([]plot.PanelItem, len(names))
	for i, n := range names {
		items[i] = plot.PanelItem{Name: n}
		if value != nil {
			items[i].Value = value(n)
		}
	}
	if one := plot.Panels(items, len(items), groupFar); len(names) <= plot.MaxSeries && len(one) == 1 {
		return []chartPanel{{file: base + ".svg", names: names}}
	}
	for i := range items {
		items[i].Group = groupOf(run, items[i].Name)
	}
	panels := plot.Panels(items, plot.MaxSeries, groupFar)
	count := map[string]int{}
	for _, p := range panels {
		count[p.Group]++
	}
	var out []chartPanel
	seen := map[string]int{}
	for _, p := range panels {
		g := p.Group
		seen[g]++
		file, what := base+"-"+g, groupTitles[g]
		if count[g] > 1 {
			file += fmt.Sprintf("-%d", seen[g])
			what += fmt.Sprintf(" (%d of %d)", seen[g], count[g])
		}
		out = append(out, chartPanel{file: file + ".svg", what: what, names: p.Names})
	}
	return out
}

// newChart returns a chart in the house style titled what, with the
// run's host and commit ("<sha>+dirty" for a dirty tree) as its subtitle,
// so that every chart names its run alike.
func newChart(run *result.Run, what, xlabel, ylabel string, w, h vg.Length) *plot.Chart {
	sub := run.Host.String()
	if rev := run.Revision(); rev != "" {
		sub += " · commit " + rev
	}
	return plot.New(what, sub, xlabel, ylabel, w, h)
}

// styles gives every subject in the run one style, the same in every
// chart, in the order of run.Subjects: no two alike in colour, marker and
// line pattern, nor in marker and pattern alone (see plot.Series).
func styles(run *result.Run) map[string]plot.SeriesStyle {
	present := make(map[string]bool)
	for _, s := range run.Subjects {
		present[s.Name] = true
	}
	for _, r := range run.Saturate {
		present[r.Subject] = true
	}
	for _, r := range run.Burst {
		present[r.Subject] = true
	}
	out := make(map[string]plot.SeriesStyle)
	for i, name := range subjectOrder(run, present) {
		out[name] = plot.Series(i)
	}
	return out
}

// legendLabel is a subject's legend entry: its name, marked when a peer.
func legendLabel(run *result.Run, name string) string {
	if info, _ := subjectInfo(run, name); info.Peer {
		return name + " (peer)"
	}
	return name
}

func siTick(v float64) string { return units.SI(v, 3, true) }

// panelCharts draws a chart per panel of the subjects names (panelsOf,
// value the outlier rule's, nil for none), each with alt as its text
// alternative, skipping a panel draw has nothing for.
func panelCharts(run *result.Run, base, alt string, names []string, value func(string) float64,
	draw func(chartPanel) *plot.Chart) []chartSpec {
	var out []chartSpec
	for _, p := range panelsOf(run, base, names, value) {
		a := alt
		if p.what != "" {
			a += ": " + p.what
		}
		if c := draw(p); c != nil {
			out = append(out, chartSpec{p.file, a, c})
		}
	}
	return out
}

// saturateBySubject is each subject's saturate results that keep accepts,
// in goroutine order.
func saturateBySubject(run *result.Run, keep func(result.SaturateResult) bool) map[string][]result.SaturateResult {
	out := make(map[string][]result.SaturateResult)
	for _, r := range run.Saturate {
		if keep(r) {
			out[r.Subject] = append(out[r.Subject], r)
		}
	}
	for _, rs := range out {
		slices.SortStableFunc(rs, func(a, b result.SaturateResult) int { return a.Goroutines - b.Goroutines })
	}
	return out
}

// saturateCharts plots IDs/s against goroutines, on the panels panelsOf
// lays out: a subject's value for the outlier rule is its best median.
func saturateCharts(run *result.Run) []chartSpec {
	bySubject := saturateBySubject(run, func(r result.SaturateResult) bool {
		return r.Goroutines > 0 && r.IDsPerSec > 0 // a log axis cannot show the others; the tables do
	})
	best := func(n string) float64 { return slices.MaxFunc(bySubject[n], cmpRate).IDsPerSec }
	return panelCharts(run, "saturate", "IDs/s against goroutines", subjectOrder(run, bySubject), best,
		func(p chartPanel) *plot.Chart { return saturatePanel(run, p, bySubject) })
}

func cmpRate(a, b result.SaturateResult) int { return cmp.Compare(a.IDsPerSec, b.IDsPerSec) }

// saturatePanel draws the subjects of one panel: the strict ceilings
// first, thin and dashed, so that a series on its ceiling is drawn over it
// and shows; then each subject's medians with min–max whiskers, its
// markers shifted a little along x (plot.Dodge) so that subjects at the
// same rate do not hide each other.
func saturatePanel(run *result.Run, panel chartPanel, bySubject map[string][]result.SaturateResult) *plot.Chart {
	what := "Saturate: IDs/s against goroutines (median of repeats, whiskers min–max)"
	if panel.what != "" {
		what = "Saturate, " + panel.what + ": IDs/s against goroutines (median, whiskers min–max)"
	}
	d := newChart(run, what, "goroutines (log₂ scale)", "IDs per second", 10*vg.Inch, 4.4*vg.Inch)
	d.P.Add(plot.Grid())
	y := plot.NewSpan()
	ceilings := strictCeilings(run, panel.names)
	for i, c := range ceilings {
		y.See(c.v)
		d.P.Add(c.line(i))
	}
	styles := styles(run)
	for k, name := range panel.names {
		rs := bySubject[name]
		xys := make(plotter.XYs, len(rs))
		var errs plot.YErrs
		for i, r := range rs {
			xys[i] = plotter.XY{X: float64(r.Goroutines) * plot.Dodge(k, len(panel.names)), Y: r.IDsPerSec}
			y.See(r.IDsPerSec)
			if len(r.Samples) > 1 {
				lo, hi := slices.Min(r.Samples), slices.Max(r.Samples)
				if lo > 0 && hi > lo {
					errs = append(errs, plot.YErr{X: xys[i].X, Y: r.IDsPerSec, Lo: lo, Hi: hi})
					y.See(lo, hi)
				}
			}
		}
		var whiskers []gplot.Plotter
		if len(errs) > 0 {
			whiskers = append(whiskers, errs.Bars(styles[name].Color))
		}
		d.Line(legendLabel(run, name), styles[name], xys, whiskers...)
	}
	// The ceilings' legend after the series', their lines beneath them.
	for i, c := range ceilings {
		d.Add(c.label(len(ceilings)), c.line(i))
	}
	plot.Scale(&d.P.Y, &d.YLabel, y.Lo, y.Hi, siTick, false)
	goroutineAxis(run, &d.P.X, panel.names, bySubject)
	return d
}

// ceiling is a strict ceiling shared by the subjects names, of nodes
// node ids each.
type ceiling struct {
	v     float64
	nodes []int
	names []string
}

// strictCeilings are the distinct strict ceilings of the subjects names,
// highest first.
func strictCeilings(run *result.Run, names []string) []*ceiling {
	var ceilings []*ceiling
	for _, name := range names {
		info, ok := subjectInfo(run, name)
		if !ok || !info.Strict || info.CeilingIDs <= 0 {
			continue
		}
		i := slices.IndexFunc(ceilings, func(c *ceiling) bool {
			return math.Abs(c.v-info.CeilingIDs) <= 1e-9*c.v
		})
		if i < 0 {
			ceilings = append(ceilings, &ceiling{v: info.CeilingIDs})
			i = len(ceilings) - 1
		}
		c := ceilings[i]
		if !slices.Contains(c.nodes, info.Nodes) {
			c.nodes = append(c.nodes, info.Nodes)
		}
		c.names = append(c.names, name)
	}
	slices.SortFunc(ceilings, func(a, b *ceiling) int { return cmp.Compare(b.v, a.v) })
	return ceilings
}

// line is the ceiling's reference line, the i-th of its chart.
func (c *ceiling) line(i int) plot.HLine { return plot.RefLine(c.v, i) }

// label is the ceiling's legend entry, naming its subject when it has one
// and the chart draws more than one ceiling (of n).
func (c *ceiling) label(n int) string {
	label := "ceiling"
	if len(c.nodes) == 1 {
		label += fmt.Sprintf(" %d node%s", c.nodes[0], plural(c.nodes[0]))
	}
	label += ": " + units.SI(c.v, 4, true) + "/s"
	if len(c.names) == 1 && n > 1 {
		label += " (" + c.names[0] + ")"
	}
	return label
}

// goroutineAxis puts goroutines on a log₂ axis x spanning the panel's
// subjects (plot.Log2Axis), marking every count the sweep used.
func goroutineAxis(run *result.Run, x *gplot.Axis, names []string, bySubject map[string][]result.SaturateResult) {
	span := plot.NewSpan()
	for _, name := range names {
		for _, r := range bySubject[name] {
			span.See(float64(r.Goroutines))
		}
	}
	gs, _, _ := satGrid(run)
	plot.Log2Axis(x, span.Lo, span.Hi, gs)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// percentiles are the latency chart's x axis.
var percentiles = []string{"p50", "p90", "p99", "p99.9", "p99.99", "max"}

// latencyCharts plots each NextID burst's per-call latency percentiles,
// on the panels panelsOf lays out (no outlier rule: the latency axis is
// logarithmic whatever it holds, and a subject's tail is read against the
// others').
func latencyCharts(run *result.Run) []chartSpec {
	present := make(map[string]bool)
	for _, b := range run.Burst {
		if latencyDrawn(b) {
			present[b.Subject] = true
		}
	}
	if len(present) == 0 {
		return nil
	}
	return panelCharts(run, "latency", "per-call latency percentiles of the bursts", subjectOrder(run, present), nil,
		func(p chartPanel) *plot.Chart { return latencyPanel(run, p) })
}

// latencyDrawn reports whether the latency chart draws burst b: one call
// per ID, with latencies recorded.
func latencyDrawn(b result.BurstResult) bool {
	return b.Via == "NextID" && (b.Latency.Max > 0 || b.Latency.P50 > 0)
}

// latencyPanel plots the NextID bursts of the panel's subjects.
func latencyPanel(run *result.Run, panel chartPanel) *plot.Chart {
	var bursts []result.BurstResult
	for _, b := range run.Burst {
		if latencyDrawn(b) && slices.Contains(panel.names, b.Subject) {
			bursts = append(bursts, b)
		}
	}
	if len(bursts) == 0 {
		return nil
	}
	sortBursts(run, bursts)
	styles := styles(run)
	what := "Per-call latency, burst via NextID"
	if panel.what != "" {
		what += ", " + panel.what
	}
	shape, manyG := burstShape(bursts)
	what += shape
	d := newChart(run, what, "percentile of calls", "latency per call", 10*vg.Inch, 4.4*vg.Inch)
	p := d.P
	g := plot.Grid()
	g.Vertical.Color = nil
	p.Add(g)
	y := plot.NewSpan()
	for k, b := range bursts {
		l := b.Latency
		vals := []int64{l.P50, l.P90, l.P99, l.P999, l.P9999, l.Max}
		dx := math.Log2(plot.Dodge(k, len(bursts))) // plot.Dodge's shift, its octaves here a share of a step
		xys := make(plotter.XYs, len(vals))
		for i, v := range vals {
			xys[i] = plotter.XY{X: float64(i) + dx, Y: math.Max(float64(v), 1)} // a log axis has no zero
			y.See(xys[i].Y)
		}
		label := legendLabel(run, b.Subject)
		if manyG {
			label += fmt.Sprintf(", %d goroutines", b.Goroutines)
		}
		d.Line(label, styles[b.Subject], xys)
	}
	plot.Scale(&p.Y, &d.YLabel, y.Lo, y.Hi, units.Ns, true)
	p.NominalX(percentiles...)
	p.X.Min, p.X.Max = -0.4, float64(len(percentiles))-0.6
	return d
}
