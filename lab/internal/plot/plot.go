package plot

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// New returns a chart of w by h in the house fonts: a title (what it
// shows), a subtitle (where it was measured), axis labels and an empty
// legend.
func New(title, subtitle, xlabel, ylabel string, w, h vg.Length) *Chart {
	p := gplot.New()
	p.BackgroundColor = nil // Save paints the whole page
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Tick.Label.Font = Sans(9)
	}
	leg := gplot.NewLegend()
	leg.TextStyle.Font = Sans(9.5)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(26)
	leg.Padding = vg.Points(3)
	return &Chart{P: p, Title: title, Subtitle: subtitle, XLabel: xlabel, YLabel: ylabel, legend: leg, w: w, h: h}
}

// Color is the i-th colour of the palette, wrapping around.
func Color(i int) color.Color { return Palette[i%len(Palette)] }

// Chart is a plot with its titles, axis labels and legend, which Save
// lays out itself: the title across the whole page, the legend in a column
// beside the data area rather than over it, and the axis labels centred on
// the data area (gonum places an axis label's padding by the midpoint of
// the axis range, which on a log axis reserves room at the far end).
type Chart struct {
	P               *gplot.Plot
	Title, Subtitle string
	XLabel, YLabel  string
	legend          gplot.Legend
	entries         int
	w, h            vg.Length
}

func (d *Chart) Add(label string, thumbs ...gplot.Thumbnailer) {
	d.legend.Add(label, thumbs...)
	d.entries++
}

// Save renders the chart to an SVG file at path.
func (d *Chart) Save(path string) (err error) {
	c := vgsvg.New(d.w, d.h)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	area := draw.Crop(dc, margin, -margin, margin, -margin)
	for _, t := range []struct {
		s    string
		size vg.Length
		col  color.Color
	}{{d.Title, 12.5, color.Black}, {d.Subtitle, 10, color.Gray{0x40}}} {
		if t.s == "" {
			continue
		}
		sty := Text(t.size, draw.XCenter, draw.YTop)
		sty.Color = t.col
		area.FillText(sty, vg.Point{X: area.Center().X, Y: area.Max.Y}, t.s)
		area.Max.Y -= sty.Height(t.s) + 3
	}
	area.Max.Y -= 8

	plotArea := area
	if d.entries > 0 {
		r := d.legend.Rectangle(area)
		plotArea.Max.X -= r.Max.X - r.Min.X + legendGap
	}
	lab := Text(10.5, draw.XCenter, draw.YBottom)
	lh := lab.Height("Mg")
	descent := lab.FontExtents().Descent
	inner := plotArea
	if d.XLabel != "" {
		inner.Min.Y += lh + labelGap
	}
	if d.YLabel != "" {
		inner.Min.X += lh + labelGap
	}
	d.P.X.Label.Text, d.P.Y.Label.Text = "", ""
	da := d.P.DataCanvas(inner)
	d.P.Draw(inner)
	if d.XLabel != "" {
		plotArea.FillText(lab, vg.Point{X: da.Center().X, Y: plotArea.Min.Y + descent}, d.XLabel)
	}
	if d.YLabel != "" {
		sty := lab
		sty.Rotation = math.Pi / 2
		plotArea.FillText(sty, vg.Point{X: plotArea.Min.X + lh - descent, Y: da.Center().Y}, d.YLabel)
	}
	if d.entries > 0 {
		leg := area
		leg.Min.X = plotArea.Max.X + legendGap
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
	margin    = vg.Length(8)
	legendGap = vg.Length(14)
	labelGap  = vg.Length(4)
)

// Sans is the chart typeface: Liberation Sans, which gonum embeds for
// measuring text and is metric-compatible with Arial.
func Sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// Text is a text style in the house typeface.
func Text(size vg.Length, xa draw.XAlignment, ya draw.YAlignment) text.Style {
	return text.Style{Color: color.Black, Font: Sans(size), XAlign: xa, YAlign: ya,
		Handler: gplot.DefaultTextHandler}
}

// Palette is the series colours: Tableau 10, its grey swapped for a dark
// blue so that no series is confused with the grey reference lines.
var Palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, color.RGBA{0x17, 0xbe, 0xcf, 0xff},
	color.RGBA{0xbc, 0xbd, 0x22, 0xff}, color.RGBA{0x39, 0x3b, 0x79, 0xff},
}

// Grid is the light grid behind the data.
func Grid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Horizontal.Color = color.Gray{0xd8}
	g.Horizontal.Width = vg.Points(0.5)
	g.Vertical.Color = color.Gray{0xe8}
	g.Vertical.Width = vg.Points(0.5)
	return g
}

// UseLog decides an axis scale from the data: logarithmic when the
// values span more than 100x, where a linear axis would flatten the small
// ones against zero.
func UseLog(lo, hi float64) bool {
	return lo > 0 && hi/lo > 100
}

// LogBounds widens [lo, hi] to the nearest 1-2-5 steps outside it, so
// that a log axis starts and ends on a labelled value.
func LogBounds(lo, hi float64) (float64, float64) {
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

// LogTicks marks a log axis: every power of ten labelled, 2× and 5×
// labelled too when the axis spans few decades, the rest as minor ticks.
type LogTicks struct{ Format func(float64) string }

func (t LogTicks) Ticks(lo, hi float64) []gplot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	decades := math.Log10(hi / lo)
	var ticks []gplot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := gplot.Tick{Value: v}
			if m == 1 || decades <= 3.5 && (m == 2 || m == 5) {
				tk.Label = t.Format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// LinTicks marks a linear axis every 1, 2, 2.5 or 5 × 10^k, about six
// labelled ticks with a minor tick between each two (gonum's default aims
// at three, too few to read a value off).
type LinTicks struct{ Format func(float64) string }

func (t LinTicks) Ticks(lo, hi float64) []gplot.Tick {
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
	var ticks []gplot.Tick
	first := math.Ceil(lo/step-1e-9) * step
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, gplot.Tick{Value: v, Label: t.Format(v)})
		if m := v + step/2; m <= hi {
			ticks = append(ticks, gplot.Tick{Value: m})
		}
	}
	if first-step/2 >= lo {
		ticks = append(ticks, gplot.Tick{Value: first - step/2})
	}
	return ticks
}

// Scale sets a value axis to [lo, hi] of the data: log (lo > 0 and
// wide ranges) or linear from zero. It reports whether it chose log.
func Scale(a *gplot.Axis, lo, hi float64, format func(float64) string, forceLog bool) bool {
	if (forceLog || UseLog(lo, hi)) && lo > 0 {
		a.Scale = gplot.LogScale{}
		a.Min, a.Max = LogBounds(lo, hi)
		a.Tick.Marker = LogTicks{format}
		return true
	}
	a.Scale = gplot.LinearScale{}
	a.Min, a.Max = 0, hi*1.06
	if a.Max <= 0 {
		a.Max = 1
	}
	a.Tick.Marker = LinTicks{format}
	return false
}

// HLine is a horizontal reference line across the data area.
type HLine struct {
	Y     float64
	Style draw.LineStyle
}

func (h HLine) Plot(c draw.Canvas, p *gplot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.Y)
	c.StrokeLine2(h.Style, c.Min.X, y, c.Max.X, y)
}

func (h HLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.Y, h.Y
}

func (h HLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(h.Style, c.Min.X, y, c.Max.X, y)
}

// Dashes are the dash patterns of successive reference lines.
var Dashes = [][]vg.Length{{7, 3}, {2, 2.5}, {9, 3, 2, 3}, {4, 4}}

// YErr is one whisker from lo to hi at (x, y).
type YErr struct{ X, Y, Lo, Hi float64 }

type YErrs []YErr

func (e YErrs) Len() int                    { return len(e) }
func (e YErrs) XY(i int) (float64, float64) { return e[i].X, e[i].Y }
func (e YErrs) YError(i int) (float64, float64) {
	return e[i].Y - e[i].Lo, e[i].Hi - e[i].Y
}

// Bars draws the whiskers in colour c.
func (e YErrs) Bars(c color.Color) gplot.Plotter {
	bars, err := plotter.NewYErrorBars(e)
	if err != nil {
		return nothing{}
	}
	bars.Color = c
	bars.Width = vg.Points(1)
	bars.CapWidth = vg.Points(6)
	return bars
}

type nothing struct{}

func (nothing) Plot(draw.Canvas, *gplot.Plot) {}

// Swatch is a legend thumbnail: a filled block.
type Swatch struct{ Color color.Color }

func (s Swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	h := r.Max.Y - r.Min.Y
	r.Min.Y += h * 0.15
	r.Max.Y -= h * 0.15
	c.SetColor(s.Color)
	c.Fill(r.Path())
}

// SaveAll saves each chart as dir/<name>, in the order of names, skipping
// the nil ones (a chart the run has no data for), and returns the paths
// written. dir is created when there is something to write.
func SaveAll(dir string, names []string, charts map[string]*Chart) ([]string, error) {
	var paths []string
	for _, name := range names {
		c := charts[name]
		if c == nil {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return paths, err
		}
		path := filepath.Join(dir, name)
		if err := c.Save(path); err != nil {
			return paths, fmt.Errorf("chart %s: %w", name, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
