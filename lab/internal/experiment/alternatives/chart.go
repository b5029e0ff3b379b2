package alternatives

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/units"
)

func newChart(run *runResult, what, xlabel, ylabel string) *plot.Chart {
	return plot.New(what, report.Subtitle(run.Host, revision(run)), xlabel, ylabel, 12*vg.Inch, 6.5*vg.Inch)
}

func refLine(y float64, i int) plot.HLine {
	return plot.HLine{Y: y, Style: draw.LineStyle{Color: color.Gray{0x40}, Width: vg.Points(1.1), Dashes: plot.Dashes[i%len(plot.Dashes)]}}
}

// rateChart plots IDs/s against clients on log-log axes (clients double
// from point to point).
func rateChart(run *runResult) *plot.Chart {
	lo, hi := math.Inf(1), 0.0
	type series struct {
		name string
		xys  plotter.XYs
	}
	var all []series
	for _, s := range run.Schemes {
		var xys plotter.XYs
		for _, p := range s.Points {
			if p.IDsPerSec > 0 {
				xys = append(xys, plotter.XY{X: float64(p.Clients), Y: p.IDsPerSec})
				lo, hi = math.Min(lo, p.IDsPerSec), math.Max(hi, p.IDsPerSec)
			}
		}
		if len(xys) > 0 {
			all = append(all, series{s.Name, xys})
		}
	}
	if len(all) == 0 {
		return nil
	}
	var refs []struct {
		y     float64
		label string
	}
	if d := run.Config.Demand; d > 0 {
		refs = append(refs, struct {
			y     float64
			label string
		}{d, "demand: " + units.Rate(d)})
	}
	if cl := run.CommitLatency; cl.measured() {
		refs = append(refs, struct {
			y     float64
			label string
		}{cl.OpsPerSec, "1 / commit latency: " + units.Rate(cl.OpsPerSec)})
	}
	for _, r := range refs {
		lo, hi = math.Min(lo, r.y), math.Max(hi, r.y)
	}
	what := fmt.Sprintf("IDs per second against clients, per scheme (%s runs on PostgreSQL %s)", run.Config.Duration, run.Server.Version)
	ch := newChart(run, what, "clients (simulated nodes, one connection each)", "IDs/s")
	p := ch.P
	p.Add(plot.Grid())
	for i, s := range all {
		line, points, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			continue
		}
		col := plot.Color(i)
		line.Color, points.Color = col, col
		line.Width = vg.Points(1.6)
		points.Shape = markerShape(i)
		points.Radius = vg.Points(3)
		if i >= len(plot.Palette) {
			line.Dashes = plot.Dashes[0]
		}
		p.Add(line, points)
		ch.Add(s.name, line, points)
	}
	for i, r := range refs {
		h := refLine(r.y, i)
		p.Add(h)
		ch.Add(r.label, h)
	}
	plot.Scale(&p.Y, lo, hi, chartSI, true)
	p.X.Scale = gplot.LogScale{}
	var ticks []gplot.Tick
	for _, n := range run.Config.Clients {
		ticks = append(ticks, gplot.Tick{Value: float64(n), Label: fmt.Sprint(n)})
	}
	p.X.Tick.Marker = gplot.ConstantTicks(ticks)
	if len(run.Config.Clients) > 0 {
		p.X.Min = float64(run.Config.Clients[0]) / 1.2
		p.X.Max = float64(run.Config.Clients[len(run.Config.Clients)-1]) * 1.2
	}
	return ch
}

func markerShape(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.PlusGlyph{}}
	return shapes[i%len(shapes)]
}

// windowChart draws one bar per scheme: its widest inversion window, on
// a log axis from 1 µs; a scheme whose IDs were in time order gets no bar
// and the label "0".
func windowChart(run *runResult) *plot.Chart {
	var names []string
	var vals []float64
	var labels []string
	hi := 0.0
	for _, s := range run.Schemes {
		p, ok := s.widestWindow()
		if !ok {
			continue
		}
		names = append(names, s.Name)
		w := float64(p.Disorder.Window)
		label := ns(p.Disorder.Window)
		if capped(p.Disorder.Window, run.Config.Duration) {
			label = "≥ " + label
		}
		if w <= 0 {
			w = math.NaN()
		} else {
			hi = math.Max(hi, w)
		}
		vals = append(vals, w)
		labels = append(labels, label)
	}
	if len(names) == 0 {
		return nil
	}
	bound := float64(skewBound(run.Config.Skew))
	hi = math.Max(hi, bound)
	what := fmt.Sprintf("Inversion window per scheme: the largest time by which an ID sorts before one handed out earlier (widest over %s clients)", clientList(run.Config.Clients))
	ch := newChart(run, what, "scheme", "inversion window (log scale)")
	p := ch.P
	grid := plot.Grid()
	grid.Vertical.Color = nil
	p.Add(grid, bars{values: vals, labels: labels, color: plot.Color(0)})
	h := refLine(bound, 0)
	p.Add(h)
	ch.Add("snowlab's skew bound: "+ns(skewBound(run.Config.Skew))+" (±"+ns(run.Config.Skew)+" clocks + 1 ms tick)", h)
	if run.Config.Duration > 0 {
		d := refLine(float64(run.Config.Duration), 1)
		p.Add(d)
		ch.Add("one run's length: "+run.Config.Duration.String()+" (caps a window)", d)
		hi = math.Max(hi, float64(run.Config.Duration))
	}
	plot.Scale(&p.Y, 1e3, hi*3, func(v float64) string { return units.Ns(v) }, true)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	return ch
}

// bars draws one bar per category at x = 0, 1, ..., from the bottom of
// the axis (a log axis has no zero), with its label above it.
type bars struct {
	values []float64
	labels []string
	color  color.Color
}

func (b bars) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	label := plot.Text(8.5, draw.XCenter, draw.YBottom)
	for i, v := range b.values {
		top := c.Min.Y
		if !math.IsNaN(v) {
			left, right := trX(float64(i)-0.35), trX(float64(i)+0.35)
			top = trY(v)
			c.SetColor(b.color)
			c.Fill(vg.Rectangle{Min: vg.Point{X: left, Y: c.Min.Y}, Max: vg.Point{X: right, Y: top}}.Path())
		}
		t := b.labels[i]
		if math.IsNaN(v) {
			t = "0"
		}
		c.FillText(label, vg.Point{X: trX(float64(i)), Y: top + vg.Points(2)}, t)
	}
}

func (b bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
}

// chartSI labels a tick with a short SI number: 20M, 2.5k.
func chartSI(v float64) string { return units.SI(v, 3, true) }
