package report

import (
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/snowlab/snowlab/lab/internal/plot"
)

// trendChart draws one trend across the history's runs: x is the run
// (labelled with its commit), one line per series, each series in the same
// style in every trend chart of the page (styleOf).
func trendChart(h History, t trend, ylabel string, format func(float64) string, styleOf func(string) plot.SeriesStyle) *plot.Chart {
	title := t.Name
	if !t.Gated {
		title += " (reported, not gated)"
	}
	c := plot.New(title, "", "run (commit)", ylabel, 6.4*vg.Inch, 2.9*vg.Inch)
	p := c.P
	p.Add(plot.Grid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range t.Series {
		xys := make(plotter.XYs, len(s.Points))
		for i, pt := range s.Points {
			xys[i] = plotter.XY{X: float64(pt.Run), Y: pt.Value}
			lo, hi = math.Min(lo, pt.Value), math.Max(hi, pt.Value)
		}
		c.Line(s.Host, styleOf(s.Host), xys)
	}
	plot.Scale(&p.Y, &c.YLabel, lo, hi, format, false)
	n := len(h.Runs)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	// Label every run whose label has room beside the last one labelled,
	// measured in the tick font: the data area is the page less the
	// legend's column and the y axis.
	lay := c.Layout()
	width := lay.Legend.Min.X - yAxisRoom
	if lay.Legend.Max.X == 0 {
		width = lay.Page.Max.X - yAxisRoom
	}
	font := plot.Text(9, draw.XCenter, draw.YTop)
	every := 1
	for n > 0 && width/vg.Length(n)*vg.Length(every) < font.Width("0000000+")+6 && every < n {
		every++
	}
	var ticks []gplot.Tick
	for i, r := range h.Runs {
		tk := gplot.Tick{Value: float64(i)}
		if i%every == 0 {
			tk.Label = shortRevision(r.Run.Revision())
		}
		ticks = append(ticks, tk)
	}
	p.X.Tick.Marker = gplot.ConstantTicks(ticks)
	return c
}

// yAxisRoom is what a trend chart's y axis, its label and the page margin
// take of the width, at most.
const yAxisRoom = vg.Length(80)

// shortRevision is a commit for an axis: its first seven characters,
// marked + when the tree was dirty, "?" for none.
func shortRevision(rev string) string {
	dirty := len(rev) > 6 && rev[len(rev)-6:] == "+dirty"
	if dirty {
		rev = rev[:len(rev)-6]
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if rev == "" {
		rev = "?"
	}
	if dirty {
		rev += "+"
	}
	return rev
}
