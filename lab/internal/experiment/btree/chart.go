package btree

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// The charts' file names, under the run's stem, SVG files the report
// writes beside its Markdown:
//
//   - index-size.svg: the primary-key index's size per key kind, one bar
//     per engine, labelled with the size and the ratio to the bigint
//     (snowlab) key, with a dash at the size the documents predict from
//     the engine's own bigint index (index layouts only);
//   - leaf-fill.svg: the leaf fill per key kind and engine, with the
//     documents' ~90% (appends) and ln 2 ≈ 69% (random inserts).
//
// The report's Markdown links them and its HTML page draws them inline.
const (
	chartSize = "index-size.svg"
	chartFill = "leaf-fill.svg"
)

// chartEngines are the engines with results, and the key kinds any of
// them measured, in load order.
func chartEngines(run *runResult) ([]engineResult, []keyKind) {
	var engines []engineResult
	seen := map[keyKind]bool{}
	for _, e := range run.Engines {
		if len(e.Keys) == 0 {
			continue
		}
		engines = append(engines, e)
		for _, r := range e.Keys {
			seen[r.Key] = true
		}
	}
	var keys []keyKind
	for _, k := range kinds() {
		if seen[k] {
			keys = append(keys, k)
		}
	}
	return engines, keys
}

// chartLabels are the keys' short names for the x axis.
func chartLabels(keys []keyKind) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = string(k)
		if k.wide() {
			out[i] = k.label()
		}
	}
	return out
}

const chartXLabel = "key (sequence and snowlab: 8-byte bigint; UUIDv7, ULID, UUIDv4: 16 bytes)"

// engineLabel is the engine and its version number: "postgresql 15.18".
func engineLabel(e engineResult) string {
	name := e.Engine
	if v := strings.Fields(e.Version); len(v) >= 2 {
		name += " " + v[1]
	}
	if e.Engine == engineSQLiteClustered {
		return name + " (whole rows)"
	}
	return name + " (index)"
}

const mib = 1 << 20

func sizeChart(run *runResult) *plot.Chart {
	engines, keys := chartEngines(run)
	if len(engines) == 0 {
		return nil
	}
	g := groupedBars{width: 0.8}
	hi := 0.0
	anyMark := false
	for s, e := range engines {
		vals, labels, marks := make([]float64, len(keys)), make([]string, len(keys)), make([]float64, len(keys))
		big, hasBig := e.key(bigint)
		for i, k := range keys {
			vals[i], marks[i] = math.NaN(), math.NaN()
			r, ok := e.key(k)
			if !ok {
				continue
			}
			vals[i] = float64(r.Index.Bytes) / mib
			labels[i] = units.TrimSig(vals[i], 3)
			if ratio := e.ratio(k, bigint); !math.IsNaN(ratio) {
				labels[i] += "\n" + units.TrimSig(ratio, 3) + "×"
			}
			hi = math.Max(hi, vals[i])
			if hasBig && e.Engine != engineSQLiteClustered && predictedRatio(k) != 1 {
				marks[i] = float64(big.Index.Bytes) / mib * predictedRatio(k)
				hi = math.Max(hi, marks[i])
				anyMark = true
			}
		}
		g.series = append(g.series, barSeries{values: vals, labels: labels, marks: marks, color: plot.Color(s)})
	}
	what := fmt.Sprintf("Primary-key index size per key, %s rows (bar labels: MiB, and × the snowlab bigint's size)", units.Thousands(run.Config.Rows))
	ch := newChart(what, run.Host, run.Commit, chartXLabel, "index size, MiB", 12*vg.Inch, 6.5*vg.Inch)
	p := ch.P
	grid := plot.Grid()
	grid.Vertical.Color = nil
	p.Add(grid, g)
	for s, e := range engines {
		ch.Add(engineLabel(e), plot.Swatch{Color: g.series[s].color})
	}
	if anyMark {
		ch.Add("predicted: bigint × 1.4 or × 1.8", markThumb{})
	}
	plot.Scale(&p.Y, 0, hi, chartSI, false)
	p.Y.Max = hi * 1.2 // room for the labels
	p.NominalX(chartLabels(keys)...)
	p.X.Min, p.X.Max = -0.5, float64(len(keys))-0.5
	return ch
}

func fillChart(run *runResult) *plot.Chart {
	engines, keys := chartEngines(run)
	g := groupedBars{width: 0.8}
	any := false
	for s, e := range engines {
		vals, labels, marks := make([]float64, len(keys)), make([]string, len(keys)), make([]float64, len(keys))
		for i, k := range keys {
			vals[i], marks[i] = math.NaN(), math.NaN()
			if r, ok := e.key(k); ok && r.Index.fillKnown() {
				vals[i] = 100 * r.Index.LeafFill
				labels[i] = fmt.Sprintf("%.0f", vals[i])
				any = true
			}
		}
		g.series = append(g.series, barSeries{values: vals, labels: labels, marks: marks, color: plot.Color(s)})
	}
	if !any {
		return nil
	}
	what := fmt.Sprintf("Leaf fill of the primary-key index per key, %s rows (dashed: the documents' prediction)", units.Thousands(run.Config.Rows))
	ch := newChart(what, run.Host, run.Commit, chartXLabel, "leaf fill, % of leaf page bytes in use", 12*vg.Inch, 6.5*vg.Inch)
	p := ch.P
	grid := plot.Grid()
	grid.Vertical.Color = nil
	p.Add(grid, g)
	for s, e := range engines {
		ch.Add(engineLabel(e), plot.Swatch{Color: g.series[s].color})
	}
	for i, ref := range []struct {
		y     float64
		label string
	}{{100 * predictedFillOrdered, "predicted, appends: 90%"}, {100 * predictedFillRandom, "predicted, random: ln 2 ≈ 69%"}} {
		h := plot.HLine{Y: ref.y, Style: draw.LineStyle{Color: color.Gray{0x40}, Width: vg.Points(1.1), Dashes: plot.Dashes[i%len(plot.Dashes)]}}
		p.Add(h)
		ch.Add(ref.label, h)
	}
	p.Y.Min, p.Y.Max = 0, 112
	p.Y.Tick.Marker = gplot.ConstantTicks(percentTicks())
	p.NominalX(chartLabels(keys)...)
	p.X.Min, p.X.Max = -0.5, float64(len(keys))-0.5
	return ch
}

func percentTicks() []gplot.Tick {
	var t []gplot.Tick
	for v := 0; v <= 100; v += 10 {
		t = append(t, gplot.Tick{Value: float64(v), Label: fmt.Sprint(v)})
		if v < 100 {
			t = append(t, gplot.Tick{Value: float64(v) + 5})
		}
	}
	return t
}

// barSeries is one engine's bars: a value per category (NaN: none), the
// text above each bar, and a dashed mark across it (NaN: none).
type barSeries struct {
	values []float64
	labels []string
	marks  []float64
	color  color.Color
}

// groupedBars draws one group of bars per category at x = 0, 1, ..., one
// bar per series side by side within width.
type groupedBars struct {
	series []barSeries
	width  float64
}

var markStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.6), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}

func (g groupedBars) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(g.series)
	if n == 0 {
		return
	}
	bw := g.width / float64(n)
	label := plot.Text(8.5, draw.XCenter, draw.YBottom)
	for s, ser := range g.series {
		for i, v := range ser.values {
			if math.IsNaN(v) {
				continue
			}
			x0 := float64(i) - g.width/2 + float64(s)*bw
			left, right := trX(x0+bw*0.06), trX(x0+bw*0.94)
			top := trY(v)
			c.SetColor(ser.color)
			c.Fill(vg.Rectangle{Min: vg.Point{X: left, Y: trY(0)}, Max: vg.Point{X: right, Y: top}}.Path())
			if m := ser.marks[i]; !math.IsNaN(m) {
				y := trY(m)
				c.StrokeLine2(markStyle, left-vg.Points(2), y, right+vg.Points(2), y)
				if y > top {
					top = y
				}
			}
			if t := ser.labels[i]; t != "" {
				c.FillText(label, vg.Point{X: (left + right) / 2, Y: top + vg.Points(2)}, t)
			}
		}
	}
}

func (g groupedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), 0, 0
}

// markThumb is the legend thumbnail of the predicted-size dash.
type markThumb struct{}

func (markThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(markStyle, c.Min.X, y, c.Max.X, y)
}

// newChart is a chart in the lab's house style, its subtitle the host and
// commit the run measured.
func newChart(what string, on result.Host, commit, xlabel, ylabel string, w, h vg.Length) *plot.Chart {
	return plot.New(what, report.Subtitle(on, commit), xlabel, ylabel, w, h)
}

// chartSI labels a tick with a short SI number: 20M, 2.5k.
func chartSI(v float64) string { return units.SI(v, 3, true) }
