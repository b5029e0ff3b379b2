package plot

import (
	"bytes"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

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
		a.Tick.Label.Font = sans(9)
	}
	leg := gplot.NewLegend()
	leg.TextStyle.Font = sans(9.5)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(26)
	leg.Padding = vg.Points(3)
	return &Chart{P: p, Title: title, Subtitle: subtitle, XLabel: xlabel, YLabel: ylabel, legend: leg, w: w, h: h}
}

// Chart is a plot with its titles, axis labels and legend, which save
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

// layout is where Render puts a chart's parts, in points from the lower
// left corner: the page, and the legend's box (empty without a legend).
type layout struct {
	Page, Legend vg.Rectangle
}

// titleLine is a line of the chart's heading in its style.
type titleLine struct {
	s   string
	sty text.Style
}

// titleLines are the chart's title and subtitle, those it has.
func (d *Chart) titleLines() []titleLine {
	var out []titleLine
	if d.Title != "" {
		out = append(out, titleLine{d.Title, Text(12.5, draw.XCenter, draw.YTop)})
	}
	if d.Subtitle != "" {
		sty := Text(10, draw.XCenter, draw.YTop)
		sty.Color = color.Gray{0x40}
		out = append(out, titleLine{d.Subtitle, sty})
	}
	return out
}

// layout measures the chart with the typeface's own metrics (the ones
// gonum embeds, which browsers get through the font stack Render names):
// the page is made taller than asked when the legend would not fit beside
// the data, and the legend's column is as wide as its longest entry.
func (d *Chart) Layout() layout {
	top := margin + 8
	for _, t := range d.titleLines() {
		top += t.sty.Height(t.s) + 3
	}
	w, h := d.w, d.h
	var legend vg.Rectangle
	if d.entries > 0 {
		// The legend's size does not depend on the canvas it is given.
		r := d.legend.Rectangle(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
		lw, lh := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
		h = max(h, top+lh+margin+underLegend)
		legend = vg.Rectangle{
			Min: vg.Point{X: w - margin - lw, Y: h - top - lh},
			Max: vg.Point{X: w - margin, Y: h - top},
		}
	}
	return layout{Page: vg.Rectangle{Max: vg.Point{X: w, Y: h}}, Legend: legend}
}

// WriteTo renders the chart as an SVG document to w.
func (d *Chart) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	if err := d.render(&buf); err != nil {
		return 0, err
	}
	n, err := w.Write(fontStack(buf.Bytes()))
	return int64(n), err
}

func (d *Chart) render(w io.Writer) error {
	lay := d.Layout()
	c := vgsvg.New(lay.Page.Max.X, lay.Page.Max.Y)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	area := draw.Crop(dc, margin, -margin, margin, -margin)
	for _, t := range d.titleLines() {
		area.FillText(t.sty, vg.Point{X: area.Center().X, Y: area.Max.Y}, t.s)
		area.Max.Y -= t.sty.Height(t.s) + 3
	}
	area.Max.Y -= 8

	plotArea := area
	if d.entries > 0 {
		plotArea.Max.X = lay.Legend.Min.X - legendGap
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
		leg.Min.X, leg.Max.X = lay.Legend.Min.X, lay.Legend.Max.X
		d.legend.Draw(leg)
	}
	_, err := c.WriteTo(w)
	return err
}

// fontStack names, after the typeface the charts are measured in, the
// faces with the same metrics (Arimo, Arial) and then Helvetica: a viewer
// without Liberation Sans would otherwise fall back to its default face,
// often a wider one, and cut the legend and axis labels measured for it.
func fontStack(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"))
}

const (
	margin    = vg.Length(8)
	legendGap = vg.Length(14)
	labelGap  = vg.Length(4)
	// underLegend is the room kept below a legend taller than the data
	// area: the x axis and its label.
	underLegend = vg.Length(40)
)

// sans is the chart typeface: Liberation Sans, which gonum embeds for
// measuring text and is metric-compatible with Arial.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// Text is a text style in the house typeface.
func Text(size vg.Length, xa draw.XAlignment, ya draw.YAlignment) text.Style {
	return text.Style{Color: color.Black, Font: sans(size), XAlign: xa, YAlign: ya,
		Handler: gplot.DefaultTextHandler}
}

// palette is the series colours: Tableau 10, its grey swapped for a dark
// blue so that no series is confused with the grey reference lines, then
// six darker or duller hues, so that the standard suite's sixteen subjects
// each get a colour of their own.
var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, color.RGBA{0x17, 0xbe, 0xcf, 0xff},
	color.RGBA{0xbc, 0xbd, 0x22, 0xff}, color.RGBA{0x39, 0x3b, 0x79, 0xff},
	color.RGBA{0x00, 0x00, 0x00, 0xff}, color.RGBA{0x00, 0x5a, 0x32, 0xff},
	color.RGBA{0x7f, 0x3b, 0x08, 0xff}, color.RGBA{0x6a, 0x3d, 0x9a, 0xff},
	color.RGBA{0xa6, 0x76, 0x1d, 0xff}, color.RGBA{0x66, 0x99, 0xff, 0xff},
}

// glyphs are the series markers, filled and hollow in turn.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{},
	draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
}

// lineDashes are the series line patterns: solid, then dashed, dotted and
// dash-dotted for the series past each len(glyphs).
var lineDashes = [][]vg.Length{nil, {6, 2.5}, {1.5, 2}, {7, 2.5, 1.5, 2.5}}

// SeriesStyle is how one series is drawn: colour, marker and line pattern.
type SeriesStyle struct {
	Color  color.Color
	Glyph  draw.GlyphDrawer
	Dashes []vg.Length
}

// Series is the style of the i-th series of a chart. The marker and line
// pattern alone tell the first len(glyphs)×len(lineDashes) (32) series
// apart, so that a chart stays readable printed in grey; the colour tells
// the first len(palette) (16) apart at a glance.
func Series(i int) SeriesStyle {
	i = max(i, 0)
	return SeriesStyle{
		Color:  palette[i%len(palette)],
		Glyph:  glyphs[i%len(glyphs)],
		Dashes: lineDashes[(i/len(glyphs))%len(lineDashes)],
	}
}

// Line draws a line with markers through xys in style st and adds it to
// the legend as label, the beneath drawn first under it (its whiskers);
// it draws nothing where gonum cannot (a NaN or an infinity in xys).
func (d *Chart) Line(label string, st SeriesStyle, xys plotter.XYs, beneath ...gplot.Plotter) {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return
	}
	l.Color = st.Color
	l.Width = vg.Points(1.6)
	l.Dashes = st.Dashes
	s.Color = st.Color
	s.Shape = st.Glyph
	s.Radius = vg.Points(3.2)
	d.P.Add(beneath...)
	d.P.Add(l, s)
	d.Add(label, l, s)
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

// Scale sets a value axis to [lo, hi] of the data, its ticks labelled by
// format: log when lo > 0 and the values span more than 100x (or
// forceLog), where a linear axis would flatten the small ones against
// zero, from and to whole decades so that both ends are labelled, ticked
// by gonum, label marked " (log scale)"; else linear from zero. It
// reports whether it chose log.
func Scale(a *gplot.Axis, label *string, lo, hi float64, format func(float64) string, forceLog bool) bool {
	if lo > 0 && (forceLog || hi/lo > 100) {
		*label += " (log scale)"
		a.Scale = gplot.LogScale{}
		a.Min, a.Max = math.Pow10(int(math.Floor(math.Log10(lo)))), math.Pow10(int(math.Ceil(math.Log10(hi))))
		if a.Max <= a.Min {
			a.Max = 10 * a.Min
		}
		a.Tick.Marker = logTicks{format}
		return true
	}
	a.Scale = gplot.LinearScale{}
	a.Min, a.Max = 0, hi*1.06
	if !(a.Max > 0) {
		a.Max = 1
	}
	a.Tick.Marker = linTicks{format}
	return false
}

// linTicks marks a linear axis every 1, 2, 2.5 or 5 × 10^k, about six
// labelled ticks with a minor tick between each two (gonum's default aims
// at three, too few to read a value off).
type linTicks struct{ Format func(float64) string }

func (t linTicks) Ticks(lo, hi float64) []gplot.Tick {
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

// logTicks is gonum's log ticks, a labelled tick at every power of ten
// and the rest minor, labelled by Format (gonum's labels are strconv's:
// 1e+06) and only those from lo to hi.
type logTicks struct{ Format func(float64) string }

func (t logTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(lo > 0 && hi > lo) || math.IsInf(hi, 0) {
		return nil // gonum's panics
	}
	var ticks []gplot.Tick
	// From lo/2: gonum starts at the power of ten of its lo's log
	// truncated toward zero, which for 0.1 (-0.99999…) is 1.
	for _, tk := range (gplot.LogTicks{}).Ticks(lo/2, hi) {
		if tk.Value < lo*(1-1e-9) || tk.Value > hi*(1+1e-9) {
			continue
		}
		if tk.Label != "" {
			tk.Label = t.Format(tk.Value)
		}
		ticks = append(ticks, tk)
	}
	return ticks
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

// refDashes are the dash patterns of successive reference lines.
var refDashes = [][]vg.Length{{7, 3}, {2, 2.5}, {9, 3, 2, 3}, {4, 4}}

// RefLine is the i-th reference line of a chart (a ceiling, a threshold)
// at y: thin, grey and dashed, each in a pattern of its own.
func RefLine(y float64, i int) HLine {
	return HLine{Y: y, Style: draw.LineStyle{Color: color.Gray{0x80}, Width: vg.Points(0.8), Dashes: refDashes[i%len(refDashes)]}}
}

// Span is the range of the positive values an axis must show (a log axis
// cannot show the others).
type Span struct{ Lo, Hi float64 }

// NewSpan is a span that has seen nothing.
func NewSpan() Span { return Span{math.Inf(1), math.Inf(-1)} }

// See widens s to the positive values of vs.
func (s *Span) See(vs ...float64) {
	for _, v := range vs {
		if v > 0 {
			s.Lo, s.Hi = math.Min(s.Lo, v), math.Max(s.Hi, v)
		}
	}
}

// Dodge is the factor that shifts the k-th of n series along a log x
// axis, so that series at the same value (generators at their ceiling)
// do not hide each other's markers: 0.06 of an octave apart (more than a
// marker's width on a chart ten inches wide), at most ±0.2 of an octave
// in all.
func Dodge(k, n int) float64 {
	if n < 2 {
		return 1
	}
	step := math.Min(0.4/float64(n-1), 0.06)
	return math.Pow(2, (float64(k)-float64(n-1)/2)*step)
}

// Log2Axis puts a on a log₂ scale from lo to hi, with room at both ends,
// a labelled tick at every power of two and at each of marks (the counts
// a sweep used), a mark too near a labelled tick for its label ticked
// without one.
func Log2Axis(a *gplot.Axis, lo, hi float64, marks []int) {
	a.Scale = gplot.LogScale{}
	a.Min, a.Max = lo/math.Pow(2, 0.3), hi*math.Pow(2, 0.3)
	var ticks []gplot.Tick
	for e := math.Floor(math.Log2(a.Min)); math.Pow(2, e) <= a.Max; e++ {
		if v := math.Pow(2, e); v >= a.Min && v >= 1 {
			ticks = append(ticks, gplot.Tick{Value: v, Label: strconv.Itoa(int(v))})
		}
	}
	for _, g := range marks {
		v := float64(g)
		if v < a.Min || v > a.Max {
			continue
		}
		near := slices.ContainsFunc(ticks, func(t gplot.Tick) bool {
			return t.Label != "" && math.Abs(math.Log2(t.Value/v)) < 0.3
		})
		if near {
			if !slices.ContainsFunc(ticks, func(t gplot.Tick) bool { return t.Value == v }) {
				ticks = append(ticks, gplot.Tick{Value: v})
			}
			continue
		}
		ticks = append(ticks, gplot.Tick{Value: v, Label: strconv.Itoa(g)})
	}
	a.Tick.Marker = gplot.ConstantTicks(ticks)
}

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
