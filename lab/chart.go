package lab

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/units"
)

// WriteCharts draws run's charts as SVG files in dir and returns the paths
// written:
//
//   - saturate.svg: IDs/s against goroutines, one line per subject, with a
//     dashed line at each strict ceiling;
//   - latency.svg: per-call latency percentiles of the bursts via NextID,
//     one line per subject over the percentile axis;
//   - makespan.svg: burst makespans (median bar, min–max whisker) with the
//     layout's floor.
//
// A chart the run has no data for is skipped: no file and no error. dir is
// created when there is something to write.
func WriteCharts(run *Run, dir string) ([]string, error) {
	if run == nil {
		return nil, nil
	}
	var paths []string
	for _, c := range []struct {
		name  string
		build func(*Run) *chartDoc
	}{
		{"saturate.svg", saturateChart},
		{"latency.svg", latencyChart},
		{"makespan.svg", makespanChart},
	} {
		doc := c.build(run)
		if doc == nil {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return paths, err
		}
		path := filepath.Join(dir, c.name)
		if err := doc.save(path); err != nil {
			return paths, fmt.Errorf("lab: chart %s: %w", c.name, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// chartDoc is a plot with its titles, axis labels and legend, which save
// lays out itself: the title across the whole page, the legend in a column
// beside the data area rather than over it, and the axis labels centred on
// the data area (gonum places an axis label's padding by the midpoint of
// the axis range, which on a log axis reserves room at the far end).
type chartDoc struct {
	p               *plot.Plot
	title, subtitle string
	xlabel, ylabel  string
	legend          plot.Legend
	entries         int
	w, h            vg.Length
}

func (d *chartDoc) add(label string, thumbs ...plot.Thumbnailer) {
	d.legend.Add(label, thumbs...)
	d.entries++
}

// save renders the chart to an SVG file.
func (d *chartDoc) save(path string) (err error) {
	c := vgsvg.New(d.w, d.h)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	area := draw.Crop(dc, chartMargin, -chartMargin, chartMargin, -chartMargin)
	for _, t := range []struct {
		s    string
		size vg.Length
		col  color.Color
	}{{d.title, 12.5, color.Black}, {d.subtitle, 10, color.Gray{0x40}}} {
		if t.s == "" {
			continue
		}
		sty := chartText(t.size, draw.XCenter, draw.YTop)
		sty.Color = t.col
		area.FillText(sty, vg.Point{X: area.Center().X, Y: area.Max.Y}, t.s)
		area.Max.Y -= sty.Height(t.s) + 3
	}
	area.Max.Y -= 8

	plotArea := area
	if d.entries > 0 {
		r := d.legend.Rectangle(area)
		plotArea.Max.X -= r.Max.X - r.Min.X + chartLegendGap
	}
	lab := chartText(10.5, draw.XCenter, draw.YBottom)
	lh := lab.Height("Mg")
	descent := lab.FontExtents().Descent
	inner := plotArea
	if d.xlabel != "" {
		inner.Min.Y += lh + chartLabelGap
	}
	if d.ylabel != "" {
		inner.Min.X += lh + chartLabelGap
	}
	d.p.X.Label.Text, d.p.Y.Label.Text = "", ""
	da := d.p.DataCanvas(inner)
	d.p.Draw(inner)
	if d.xlabel != "" {
		plotArea.FillText(lab, vg.Point{X: da.Center().X, Y: plotArea.Min.Y + descent}, d.xlabel)
	}
	if d.ylabel != "" {
		sty := lab
		sty.Rotation = math.Pi / 2
		plotArea.FillText(sty, vg.Point{X: plotArea.Min.X + lh - descent, Y: da.Center().Y}, d.ylabel)
	}
	if d.entries > 0 {
		leg := area
		leg.Min.X = plotArea.Max.X + chartLegendGap
		leg.Max.Y = da.Max.Y
		d.legend.Draw(leg)
	}

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = c.WriteTo(f)
	return err
}

const (
	chartMargin    = vg.Length(8)
	chartLegendGap = vg.Length(14)
	chartLabelGap  = vg.Length(4)
)

// chartSans is the chart typeface: Liberation Sans, which gonum embeds for
// measuring text and is metric-compatible with Arial.
func chartSans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

func chartText(size vg.Length, xa draw.XAlignment, ya draw.YAlignment) text.Style {
	return text.Style{Color: color.Black, Font: chartSans(size), XAlign: xa, YAlign: ya,
		Handler: plot.DefaultTextHandler}
}

// chartNew returns a chart with the chart fonts, a title (what it shows),
// a subtitle (the host), axis labels and an empty legend.
func chartNew(run *Run, what, xlabel, ylabel string, w, h vg.Length) *chartDoc {
	p := plot.New()
	p.BackgroundColor = nil // save paints the whole page
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Label.Font = chartSans(9)
	}
	leg := plot.NewLegend()
	leg.TextStyle.Font = chartSans(9.5)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(26)
	leg.Padding = vg.Points(3)
	return &chartDoc{p: p, title: what, subtitle: chartHost(run), xlabel: xlabel, ylabel: ylabel,
		legend: leg, w: w, h: h}
}

// chartHost names the host for a chart title.
func chartHost(run *Run) string {
	h := run.Host
	parts := []string{}
	if h.CPU != "" {
		parts = append(parts, h.CPU)
	} else if h.Hostname != "" {
		parts = append(parts, h.Hostname)
	}
	if h.Hypervisor != "" {
		parts = append(parts, h.Hypervisor)
	}
	parts = append(parts, fmt.Sprintf("GOMAXPROCS %d", h.GOMAXPROCS))
	if h.GoVersion != "" {
		parts = append(parts, h.GoVersion)
	}
	if run.Commit != "" {
		parts = append(parts, "commit "+run.Revision())
	}
	return strings.Join(parts, " · ")
}

// Subject styles: a colour each (Tableau 10, grey swapped for a dark blue
// so that it is not confused with the grey ceiling lines), filled markers
// for snowlab's generators and hollow ones for peers, so that a peer reads
// as a peer without the legend.
var chartPalette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, color.RGBA{0x17, 0xbe, 0xcf, 0xff},
	color.RGBA{0xbc, 0xbd, 0x22, 0xff}, color.RGBA{0x39, 0x3b, 0x79, 0xff},
}

var (
	chartOwnGlyphs  = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	chartPeerGlyphs = []draw.GlyphDrawer{draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}}
)

type chartStyle struct {
	color color.Color
	glyph draw.GlyphDrawer
	peer  bool
}

// chartStyles gives every subject in the run one style, the same in every
// chart, in the order of run.Subjects.
func chartStyles(run *Run) map[string]chartStyle {
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
	out := make(map[string]chartStyle)
	own, peers := 0, 0
	for i, name := range rptOrder(run, present) {
		info, _ := rptSubject(run, name)
		st := chartStyle{color: chartPalette[i%len(chartPalette)], peer: info.Peer}
		if info.Peer {
			st.glyph = chartPeerGlyphs[peers%len(chartPeerGlyphs)]
			peers++
		} else {
			st.glyph = chartOwnGlyphs[own%len(chartOwnGlyphs)]
			own++
		}
		out[name] = st
	}
	return out
}

// chartLabel is a subject's legend entry: its name, marked when a peer.
func chartLabel(name string, st chartStyle) string {
	if st.peer {
		return name + " (peer)"
	}
	return name
}

func chartLine(st chartStyle, xys plotter.XYs) (*plotter.Line, *plotter.Scatter, error) {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, nil, err
	}
	l.Color = st.color
	l.Width = vg.Points(1.6)
	s.Color = st.color
	s.Shape = st.glyph
	s.Radius = vg.Points(3.2)
	return l, s, nil
}

func chartGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Horizontal.Color = color.Gray{0xd8}
	g.Horizontal.Width = vg.Points(0.5)
	g.Vertical.Color = color.Gray{0xe8}
	g.Vertical.Width = vg.Points(0.5)
	return g
}

// chartUseLog decides an axis scale from the data: logarithmic when the
// values span more than 100x, where a linear axis would flatten the small
// ones against zero.
func chartUseLog(lo, hi float64) bool {
	return lo > 0 && hi/lo > 100
}

// chartLogBounds widens [lo, hi] to the nearest 1-2-5 steps outside it, so
// that a log axis starts and ends on a labelled value.
func chartLogBounds(lo, hi float64) (float64, float64) {
	down := func(v float64) float64 {
		d := math.Pow(10, math.Floor(math.Log10(v)))
		for _, m := range []float64{5, 2, 1} {
			if m*d <= v*(1+1e-9) {
				return m * d
			}
		}
		return d
	}
	up := func(v float64) float64 {
		d := math.Pow(10, math.Floor(math.Log10(v)))
		for _, m := range []float64{1, 2, 5, 10} {
			if m*d >= v*(1-1e-9) {
				return m * d
			}
		}
		return 10 * d
	}
	lo, hi = down(lo), up(hi)
	if lo == hi {
		lo, hi = down(lo*0.99), up(hi*1.01)
	}
	return lo, hi
}

// chartLogTicks marks a log axis: every power of ten labelled, 2× and 5×
// labelled too when the axis spans few decades, the rest as minor ticks.
type chartLogTicks struct{ format func(float64) string }

func (t chartLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	decades := math.Log10(hi / lo)
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || decades <= 3.5 && (m == 2 || m == 5) {
				tk.Label = t.format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// chartLinTicks marks a linear axis every 1, 2, 2.5 or 5 × 10^k, about six
// labelled ticks with a minor tick between each two (gonum's default aims
// at three, too few to read a value off).
type chartLinTicks struct{ format func(float64) string }

func (t chartLinTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/step-1e-9) * step
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: t.format(v)})
		if m := v + step/2; m <= hi {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	if first-step/2 >= lo {
		ticks = append(ticks, plot.Tick{Value: first - step/2})
	}
	return ticks
}

// chartScale sets a value axis to [lo, hi] of the data: log (lo > 0 and
// wide ranges) or linear from zero. It reports whether it chose log.
func chartScale(a *plot.Axis, lo, hi float64, format func(float64) string, forceLog bool) bool {
	if (forceLog || chartUseLog(lo, hi)) && lo > 0 {
		a.Scale = plot.LogScale{}
		a.Min, a.Max = chartLogBounds(lo, hi)
		a.Tick.Marker = chartLogTicks{format}
		return true
	}
	a.Scale = plot.LinearScale{}
	a.Min, a.Max = 0, hi*1.06
	if a.Max <= 0 {
		a.Max = 1
	}
	a.Tick.Marker = chartLinTicks{format}
	return false
}

// Tick labels: short SI numbers (20M, 2.5k) and durations (100ns, 1µs).
func chartSI(v float64) string { return units.SI(v, 3, true) }
func chartNs(v float64) string { return units.Ns(v) }
func chartMs(v float64) string { return units.TrimSig(v, 3) }

// chartHLine is a horizontal reference line across the data area.
type chartHLine struct {
	y     float64
	style draw.LineStyle
}

func (h chartHLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

func (h chartHLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}

func (h chartHLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// chartCeilingStyles are the dash patterns of successive ceiling lines.
var chartCeilingDashes = [][]vg.Length{{7, 3}, {2, 2.5}, {9, 3, 2, 3}, {4, 4}}

// saturateChart plots IDs/s against goroutines.
func saturateChart(run *Run) *chartDoc {
	bySubject := make(map[string][]SatResult)
	var gmin, gmax = math.Inf(1), math.Inf(-1)
	for _, r := range run.Saturate {
		if r.Goroutines <= 0 || !(r.IDsPerSec > 0) {
			continue // a log axis cannot show it; the tables do
		}
		bySubject[r.Subject] = append(bySubject[r.Subject], r)
		gmin = math.Min(gmin, float64(r.Goroutines))
		gmax = math.Max(gmax, float64(r.Goroutines))
	}
	if len(bySubject) == 0 {
		return nil
	}
	present := make(map[string]bool)
	for n := range bySubject {
		present[n] = true
	}
	names := rptOrder(run, present)
	styles := chartStyles(run)
	d := chartNew(run, "Saturate: IDs/s against goroutines (median of repeats, whiskers min–max; dashed lines: strict ceilings)",
		"goroutines (log₂ scale)", "IDs per second", 10*vg.Inch, 6*vg.Inch)
	p := d.p
	p.Add(chartGrid())

	ylo, yhi := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if v > 0 {
			ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
		}
	}
	type entry struct {
		label  string
		thumbs []plot.Thumbnailer
	}
	var entries []entry
	// Subjects at the same rate (strict ones at their ceiling) would hide
	// each other's markers: shift each a little along x, at most ±0.06
	// of an octave.
	dodge := func(k int) float64 {
		if len(names) < 2 {
			return 1
		}
		step := math.Min(0.12/float64(len(names)-1), 0.02)
		return math.Pow(2, (float64(k)-float64(len(names)-1)/2)*step)
	}
	for k, name := range names {
		rs := bySubject[name]
		slices.SortFunc(rs, func(a, b SatResult) int { return a.Goroutines - b.Goroutines })
		xys := make(plotter.XYs, len(rs))
		var errs chartYErrs
		for i, r := range rs {
			xys[i] = plotter.XY{X: float64(r.Goroutines) * dodge(k), Y: r.IDsPerSec}
			see(r.IDsPerSec)
			if len(r.Samples) > 1 {
				lo, hi := slices.Min(r.Samples), slices.Max(r.Samples)
				if lo > 0 && hi > lo {
					errs = append(errs, chartYErr{x: xys[i].X, y: r.IDsPerSec, lo: lo, hi: hi})
					see(lo)
					see(hi)
				}
			}
		}
		st := styles[name]
		l, s, err := chartLine(st, xys)
		if err != nil {
			continue
		}
		if len(errs) > 0 {
			p.Add(errs.plotter(st.color))
		}
		p.Add(l, s)
		entries = append(entries, entry{chartLabel(name, st), []plot.Thumbnailer{l, s}})
	}

	// One dashed line per distinct strict ceiling among the plotted subjects.
	type ceiling struct {
		v     float64
		nodes []int
		names []string
	}
	var ceilings []*ceiling
	for _, name := range names {
		info, ok := rptSubject(run, name)
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
	slices.SortFunc(ceilings, func(a, b *ceiling) int { return -chartCmp(a.v, b.v) })
	for i, c := range ceilings {
		see(c.v)
		h := chartHLine{y: c.v, style: draw.LineStyle{Color: color.Gray{0x55}, Width: vg.Points(1.1),
			Dashes: chartCeilingDashes[i%len(chartCeilingDashes)]}}
		p.Add(h)
		label := "ceiling"
		if len(c.nodes) == 1 {
			label += fmt.Sprintf(" %d node%s", c.nodes[0], chartPlural(c.nodes[0]))
		}
		label += ": " + units.SI(c.v, 4, true) + "/s"
		if len(c.names) == 1 && len(ceilings) > 1 {
			label += " (" + c.names[0] + ")"
		}
		entries = append(entries, entry{label, []plot.Thumbnailer{h}})
	}
	for _, e := range entries {
		d.add(e.label, e.thumbs...)
	}

	if chartScale(&p.Y, ylo, yhi, chartSI, false) {
		d.ylabel += " (log scale)"
	}
	// Goroutines on a log2 axis with a tick at every power of two, and at
	// any other count the sweep used where it has room.
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = gmin/math.Pow(2, 0.3), gmax*math.Pow(2, 0.3)
	var ticks []plot.Tick
	for e := math.Floor(math.Log2(p.X.Min)); math.Pow(2, e) <= p.X.Max; e++ {
		if v := math.Pow(2, e); v >= p.X.Min && v >= 1 {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
		}
	}
	for g := range chartGoroutines(run) {
		v := float64(g)
		near := slices.ContainsFunc(ticks, func(t plot.Tick) bool {
			return t.Label != "" && math.Abs(math.Log2(t.Value/v)) < 0.3
		})
		if near {
			if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == v }) {
				ticks = append(ticks, plot.Tick{Value: v})
			}
			continue
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.Itoa(g)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	return d
}

func chartGoroutines(run *Run) map[int]bool {
	out := make(map[int]bool)
	for _, r := range run.Saturate {
		if r.Goroutines > 0 {
			out[r.Goroutines] = true
		}
	}
	return out
}

func chartCmp(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func chartPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// chartYErr is one whisker from lo to hi at (x, y).
type chartYErr struct{ x, y, lo, hi float64 }

type chartYErrs []chartYErr

func (e chartYErrs) Len() int                    { return len(e) }
func (e chartYErrs) XY(i int) (float64, float64) { return e[i].x, e[i].y }
func (e chartYErrs) YError(i int) (float64, float64) {
	return e[i].y - e[i].lo, e[i].hi - e[i].y
}

func (e chartYErrs) plotter(c color.Color) plot.Plotter {
	bars, err := plotter.NewYErrorBars(e)
	if err != nil {
		return chartNothing{}
	}
	bars.Color = c
	bars.Width = vg.Points(1)
	bars.CapWidth = vg.Points(6)
	return bars
}

type chartNothing struct{}

func (chartNothing) Plot(draw.Canvas, *plot.Plot) {}

// chartPercentiles are the latency chart's x axis.
var chartPercentiles = []string{"p50", "p90", "p99", "p99.9", "p99.99", "max"}

// latencyChart plots each NextID burst's per-call latency percentiles.
func latencyChart(run *Run) *chartDoc {
	var bursts []BurstResult
	gs := make(map[int]bool)
	ids := make(map[[2]int]bool)
	for _, b := range run.Burst {
		l := b.Latency
		if b.Via != "NextID" || l.Max <= 0 && l.P50 <= 0 {
			continue
		}
		bursts = append(bursts, b)
		gs[b.Goroutines] = true
		ids[[2]int{b.IDs, b.Repeats}] = true
	}
	if len(bursts) == 0 {
		return nil
	}
	styles := chartStyles(run)
	order := make(map[string]int)
	for i, s := range rptOrder(run, chartKeys(styles)) {
		order[s] = i
	}
	slices.SortStableFunc(bursts, func(a, b BurstResult) int {
		if d := order[a.Subject] - order[b.Subject]; d != 0 {
			return d
		}
		return a.Goroutines - b.Goroutines
	})
	what := "Per-call latency, burst via NextID"
	if len(gs) == 1 {
		what += fmt.Sprintf(" (%d goroutines", bursts[0].Goroutines)
		if len(ids) == 1 {
			what += fmt.Sprintf(", %s IDs × %d repeats", units.Thousands(bursts[0].IDs), bursts[0].Repeats)
		}
		what += ")"
	}
	d := chartNew(run, what, "percentile of calls", "latency per call (log scale)", 10*vg.Inch, 6*vg.Inch)
	p := d.p
	g := chartGrid()
	g.Vertical.Color = nil
	p.Add(g)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	n := len(bursts)
	step := 0.0
	if n > 1 {
		step = math.Min(0.3/float64(n-1), 0.04)
	}
	for k, b := range bursts {
		l := b.Latency
		vals := []int64{l.P50, l.P90, l.P99, l.P999, l.P9999, l.Max}
		dx := (float64(k) - float64(n-1)/2) * step
		xys := make(plotter.XYs, len(vals))
		for i, v := range vals {
			y := math.Max(float64(v), 1) // a log axis has no zero
			xys[i] = plotter.XY{X: float64(i) + dx, Y: y}
			ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
		}
		st := styles[b.Subject]
		line, sc, err := chartLine(st, xys)
		if err != nil {
			continue
		}
		p.Add(line, sc)
		label := chartLabel(b.Subject, st)
		if len(gs) > 1 {
			label += fmt.Sprintf(", %d goroutines", b.Goroutines)
		}
		d.add(label, line, sc)
	}
	chartScale(&p.Y, ylo, yhi, chartNs, true)
	p.NominalX(chartPercentiles...)
	p.X.Min, p.X.Max = -0.4, float64(len(chartPercentiles))-0.6
	return d
}

func chartKeys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// Colours of the makespan bars by call style, and of the floor.
var (
	chartViaColor = map[string]color.Color{
		"NextID":  color.RGBA{0x4c, 0x78, 0xa8, 0xff},
		"NextIDs": color.RGBA{0xf5, 0x85, 0x18, 0xff},
	}
	chartOtherVia  = color.RGBA{0x8c, 0x8c, 0x8c, 0xff}
	chartFloorFill = color.NRGBA{0xd6, 0x27, 0x28, 0x40}
	chartFloorLine = color.RGBA{0xb0, 0x1a, 0x1a, 0xff}
)

// chartBar is one row of the makespan chart, in milliseconds.
type chartBar struct {
	lo, med, hi float64
	floorLo     float64 // the floor band, (FloorTicks-1)..FloorTicks ticks;
	floorHi     float64 // floorHi 0 when the subject has no floor
	color       color.Color
}

// chartBars draws horizontal bars at y = 0..n-1 from the bottom: the
// median as a bar, min–max as a whisker, the floor as a shaded band ending
// in a line, and the median's value at the right.
type chartBars struct {
	rows []chartBar
	log  bool
}

func (b chartBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rowH := trY(1) - trY(0)
	bh := rowH * 0.62 // bar
	fh := rowH * 0.84 // floor band and line, apart from the next row's
	x := func(v float64) vg.Length {
		if b.log && v <= p.X.Min {
			return c.Min.X
		}
		return trX(v)
	}
	base := x(0)
	if b.log {
		base = c.Min.X
	}
	black := draw.LineStyle{Color: color.Black, Width: vg.Points(0.9)}
	label := chartText(8, draw.XLeft, draw.YCenter)
	for i, r := range b.rows {
		y := trY(float64(i))
		if r.floorHi > 0 {
			band := vg.Rectangle{Min: vg.Point{X: x(r.floorLo), Y: y - fh/2}, Max: vg.Point{X: x(r.floorHi), Y: y + fh/2}}
			c.SetColor(chartFloorFill)
			c.Fill(band.Path())
		}
		c.SetColor(r.color)
		bar := vg.Rectangle{Min: vg.Point{X: base, Y: y - bh/2}, Max: vg.Point{X: x(r.med), Y: y + bh/2}}
		c.Fill(bar.Path())
		if r.hi > r.lo {
			c.StrokeLine2(black, x(r.lo), y, x(r.hi), y)
			c.StrokeLine2(black, x(r.lo), y-bh/4, x(r.lo), y+bh/4)
			c.StrokeLine2(black, x(r.hi), y-bh/4, x(r.hi), y+bh/4)
		}
		right := x(r.hi)
		if r.floorHi > 0 {
			xf := x(r.floorHi)
			c.StrokeLine2(draw.LineStyle{Color: chartFloorLine, Width: vg.Points(1.6)}, xf, y-fh/2, xf, y+fh/2)
			right = max(right, xf)
		}
		c.FillText(label, vg.Point{X: right + vg.Points(4), Y: y}, chartMs(r.med)+" ms")
	}
}

func (b chartBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), -0.5, float64(len(b.rows)) - 0.5
}

// chartSwatch is a legend thumbnail: a filled block.
type chartSwatch struct{ color color.Color }

func (s chartSwatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	h := r.Max.Y - r.Min.Y
	r.Min.Y += h * 0.15
	r.Max.Y -= h * 0.15
	c.SetColor(s.color)
	c.Fill(r.Path())
}

// chartWhiskerThumb is the legend thumbnail of a min–max whisker.
type chartWhiskerThumb struct{}

func (chartWhiskerThumb) Thumbnail(c *draw.Canvas) {
	st := draw.LineStyle{Color: color.Black, Width: vg.Points(0.9)}
	y := c.Center().Y
	h := (c.Max.Y - c.Min.Y) / 4
	c.StrokeLine2(st, c.Min.X+2, y, c.Max.X-2, y)
	c.StrokeLine2(st, c.Min.X+2, y-h, c.Min.X+2, y+h)
	c.StrokeLine2(st, c.Max.X-2, y-h, c.Max.X-2, y+h)
}

// chartFloorThumb is the legend thumbnail of the floor line, or with band
// set of the band below it.
type chartFloorThumb struct{ band bool }

func (t chartFloorThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	if t.band {
		h := r.Max.Y - r.Min.Y
		r.Min.Y += h * 0.1
		r.Max.Y -= h * 0.1
		c.SetColor(chartFloorFill)
		c.Fill(r.Path())
		return
	}
	x := (r.Min.X + r.Max.X) / 2
	c.StrokeLine2(draw.LineStyle{Color: chartFloorLine, Width: vg.Points(1.6)}, x, r.Min.Y, x, r.Max.Y)
}

// chartTick is the tick length of b's subject, as the run recorded it; a
// subject without a tick (UUID, ULID) has no floor to draw and gets 1 ms.
func chartTick(run *Run, b BurstResult) time.Duration {
	if info, ok := rptSubject(run, b.Subject); ok && info.TickNs > 0 {
		return time.Duration(info.TickNs)
	}
	return time.Millisecond
}

// makespanChart plots each burst's makespan as a horizontal bar.
func makespanChart(run *Run) *chartDoc {
	var bursts []BurstResult
	gs := make(map[int]bool)
	ids := make(map[[2]int]bool)
	for _, b := range run.Burst {
		if len(b.MakespanNs) > 0 {
			bursts = append(bursts, b)
			gs[b.Goroutines] = true
			ids[[2]int{b.IDs, b.Repeats}] = true
		}
	}
	if len(bursts) == 0 {
		return nil
	}
	present := make(map[string]bool)
	for _, b := range bursts {
		present[b.Subject] = true
	}
	order := make(map[string]int)
	for i, s := range rptOrder(run, present) {
		order[s] = i
	}
	viaRank := func(v string) int {
		switch v {
		case "NextID":
			return 0
		case "NextIDs":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(bursts, func(a, b BurstResult) int {
		if d := order[a.Subject] - order[b.Subject]; d != 0 {
			return d
		}
		if d := viaRank(a.Via) - viaRank(b.Via); d != 0 {
			return d
		}
		return a.Goroutines - b.Goroutines
	})

	n := len(bursts)
	rows := make([]chartBar, n)
	labels := make([]string, n)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if v > 0 {
			xlo, xhi = math.Min(xlo, v), math.Max(xhi, v)
		}
	}
	vias := make(map[string]bool)
	anyFloor := false
	for i, b := range bursts {
		lo, med, hi := stats.Spread(b.MakespanNs)
		r := chartBar{lo: lo / 1e6, med: med / 1e6, hi: hi / 1e6, color: chartOtherVia}
		if c, ok := chartViaColor[b.Via]; ok {
			r.color = c
		}
		vias[b.Via] = true
		see(r.lo)
		see(r.med)
		see(r.hi)
		if b.FloorTicks > 0 {
			tick := float64(chartTick(run, b)) / 1e6
			r.floorLo, r.floorHi = float64(b.FloorTicks-1)*tick, float64(b.FloorTicks)*tick
			see(r.floorLo)
			see(r.floorHi)
			anyFloor = true
		}
		// Row 0 is at the bottom: the first burst goes on top.
		rows[n-1-i] = r
		label := b.Subject + " · " + b.Via
		if len(gs) > 1 {
			label += fmt.Sprintf(" · %d goroutines", b.Goroutines)
		}
		labels[n-1-i] = label
	}

	what := "Burst makespan: median bar, min–max whisker"
	if anyFloor {
		what += ", layout floor"
	}
	if len(gs) == 1 {
		what += fmt.Sprintf(" (%d goroutines", bursts[0].Goroutines)
		if len(ids) == 1 {
			what += fmt.Sprintf(", %s IDs × %d repeats", units.Thousands(bursts[0].IDs), bursts[0].Repeats)
		}
		what += ")"
	}
	h := max(3.2*vg.Inch, 1.6*vg.Inch+vg.Length(n)*0.3*vg.Inch)
	d := chartNew(run, what, "makespan, ms", "", 10*vg.Inch, h)
	p := d.p
	g := chartGrid()
	g.Horizontal.Color = nil
	g.Vertical.Color = color.Gray{0xd8}
	p.Add(g)
	logX := chartScale(&p.X, xlo, xhi, chartMs, false)
	if logX {
		d.xlabel += " (log scale)"
		p.X.Max *= 2.5 // room for the value labels
	} else {
		p.X.Max = xhi * 1.16
	}
	p.Add(chartBars{rows: rows, log: logX})
	p.NominalY(labels...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4

	for _, via := range []string{"NextID", "NextIDs"} {
		if vias[via] {
			what := "NextID: one call per ID"
			if via == "NextIDs" {
				what = "NextIDs: one batch per goroutine"
			}
			d.add(what, chartSwatch{chartViaColor[via]})
		}
	}
	if slices.ContainsFunc(bursts, func(b BurstResult) bool { return chartViaColor[b.Via] == nil }) {
		d.add("other call style", chartSwatch{chartOtherVia})
	}
	d.add("min–max of repeats", chartWhiskerThumb{})
	if anyFloor {
		d.add("layout floor: floor ticks × tick length", chartFloorThumb{})
		d.add("within one tick of the floor", chartFloorThumb{band: true})
	}
	return d
}
