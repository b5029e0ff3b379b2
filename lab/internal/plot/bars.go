package plot

import (
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The floor's colours: a shaded band ending in a line.
var (
	floorFill = color.NRGBA{0xd6, 0x27, 0x28, 0x40}
	floorLine = color.RGBA{0xb0, 0x1a, 0x1a, 0xff}
)

// Bar is one row of a Bars chart.
type Bar struct {
	Lo, Med, Hi float64
	FloorLo     float64 // the floor band, FloorLo..FloorHi;
	FloorHi     float64 // FloorHi 0 for a row with no floor
	Color       color.Color
}

// Bars draws horizontal bars at y = 0..n-1 from the bottom: the median
// as a bar, min–max as a whisker, the floor as a shaded band ending in a
// line, and the median's value (Label) at the right. Log is whether the
// x axis is a log scale (Scale's answer).
type Bars struct {
	Rows  []Bar
	Log   bool
	Label func(float64) string
}

// Plot draws the bars on c (gonum's Plotter).
func (b Bars) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	rowH := trY(1) - trY(0)
	bh := rowH * 0.62 // bar
	fh := rowH * 0.84 // floor band and line, apart from the next row's
	x := func(v float64) vg.Length {
		if b.Log && v <= p.X.Min {
			return c.Min.X
		}
		return trX(v)
	}
	base := x(0)
	if b.Log {
		base = c.Min.X
	}
	black := draw.LineStyle{Color: color.Black, Width: vg.Points(0.9)}
	label := Text(8, draw.XLeft, draw.YCenter)
	for i, r := range b.Rows {
		y := trY(float64(i))
		if r.FloorHi > 0 {
			band := vg.Rectangle{Min: vg.Point{X: x(r.FloorLo), Y: y - fh/2}, Max: vg.Point{X: x(r.FloorHi), Y: y + fh/2}}
			c.SetColor(floorFill)
			c.Fill(band.Path())
		}
		c.SetColor(r.Color)
		bar := vg.Rectangle{Min: vg.Point{X: base, Y: y - bh/2}, Max: vg.Point{X: x(r.Med), Y: y + bh/2}}
		c.Fill(bar.Path())
		if r.Hi > r.Lo {
			c.StrokeLine2(black, x(r.Lo), y, x(r.Hi), y)
			c.StrokeLine2(black, x(r.Lo), y-bh/4, x(r.Lo), y+bh/4)
			c.StrokeLine2(black, x(r.Hi), y-bh/4, x(r.Hi), y+bh/4)
		}
		right := x(r.Hi)
		if r.FloorHi > 0 {
			xf := x(r.FloorHi)
			c.StrokeLine2(draw.LineStyle{Color: floorLine, Width: vg.Points(1.6)}, xf, y-fh/2, xf, y+fh/2)
			right = max(right, xf)
		}
		c.FillText(label, vg.Point{X: right + vg.Points(4), Y: y}, b.Label(r.Med))
	}
}

// DataRange is the rows' (gonum's DataRanger); the x axis is the caller's
// to set.
func (b Bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), -0.5, float64(len(b.Rows)) - 0.5
}

// WhiskerThumb is the legend thumbnail of Bars' min–max whisker.
type WhiskerThumb struct{}

// Thumbnail draws it.
func (WhiskerThumb) Thumbnail(c *draw.Canvas) {
	st := draw.LineStyle{Color: color.Black, Width: vg.Points(0.9)}
	y := c.Center().Y
	h := (c.Max.Y - c.Min.Y) / 4
	c.StrokeLine2(st, c.Min.X+2, y, c.Max.X-2, y)
	c.StrokeLine2(st, c.Min.X+2, y-h, c.Min.X+2, y+h)
	c.StrokeLine2(st, c.Max.X-2, y-h, c.Max.X-2, y+h)
}

// FloorThumb is the legend thumbnail of Bars' floor line, or with Band
// set of the band below it.
type FloorThumb struct{ Band bool }

// Thumbnail draws it.
func (t FloorThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	if t.Band {
		h := r.Max.Y - r.Min.Y
		r.Min.Y += h * 0.1
		r.Max.Y -= h * 0.1
		c.SetColor(floorFill)
		c.Fill(r.Path())
		return
	}
	x := (r.Min.X + r.Max.X) / 2
	c.StrokeLine2(draw.LineStyle{Color: floorLine, Width: vg.Points(1.6)}, x, r.Min.Y, x, r.Max.Y)
}
