package lab

import (
	"image/color"
	"io"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/units"
)

// This file exports the pieces of the lab's result files, reports and
// charts that an experiment in its own package (lab/btree) needs to write
// its results the way a suite run does: the same file names, the same
// JSON writing, the same Markdown tables and host section, and charts in
// the same fonts, colours and layout.

// Stem names an experiment's files: <date>-<host>-<short sha>, exactly as
// Run.Stem names a suite run's ("+dirty" becomes "-dirty", no sha
// "nosha"). An experiment appends its own suffix (e.g. "-btree").
func Stem(started time.Time, host Fingerprint, commit string) string {
	return (&Run{Started: started, Host: host, Commit: commit}).Stem()
}

// WriteJSONFile writes v as indented JSON to path through a temporary file
// renamed into place, as result files are written.
func WriteJSONFile(path string, v any) error { return writeJSON(path, v) }

// MarkdownTable writes a Markdown table as the lab's reports do; cells are
// escaped.
func MarkdownTable(w io.Writer, header []string, rows [][]string) error {
	e := md.NewWriter(w)
	e.Table(header, rows)
	return e.Err()
}

// MarkdownHost writes the "## Host" section of a run's report (and the
// clock audit) for the fingerprint f.
func MarkdownHost(w io.Writer, f Fingerprint) error {
	e := md.NewWriter(w)
	reportHost(e, &Run{Host: f})
	return e.Err()
}

// MarkdownCode writes s as a Markdown code span.
func MarkdownCode(s string) string { return md.Code(s) }

// MarkdownEscape escapes s for running Markdown text.
func MarkdownEscape(s string) string { return md.Escape(s) }

// ShellJoin joins a command line, quoting what a shell would split.
func ShellJoin(args []string) string { return md.ShellJoin(args) }

// HumanBytes formats a size with binary prefixes (64 B, 48 KiB, 2.1 MiB).
func HumanBytes(n int64) string { return units.Bytes(n) }

// HumanRate formats a rate per second to three significant digits with an
// SI prefix: 4.10M/s, 950/s.
func HumanRate(perSec float64) string { return units.Rate(perSec) }

// HumanNs formats nanoseconds to three significant digits with a unit.
func HumanNs(ns float64) string { return units.Ns(ns) }

// TrimSig formats v to sig significant digits without trailing zeros.
func TrimSig(v float64, sig int) string { return units.TrimSig(v, sig) }

// Thousands writes n with comma separators: 20,000.
func Thousands(n int) string { return units.Thousands(n) }

// Chart is a chart in the lab's house style: title across the page, the
// host as subtitle, the legend in a column beside the data area, axis
// labels centred on it, Liberation Sans throughout.
type Chart struct{ d *chartDoc }

// NewChart starts a chart of w by h showing what, with the host and
// commit as its subtitle.
func NewChart(what string, host Fingerprint, commit, xlabel, ylabel string, w, h vg.Length) *Chart {
	return &Chart{d: chartNew(&Run{Host: host, Commit: commit}, what, xlabel, ylabel, w, h)}
}

// Plot is the chart's plot, to add plotters to and set axes on.
func (c *Chart) Plot() *plot.Plot { return c.d.p }

// Legend adds a legend entry.
func (c *Chart) Legend(label string, thumbs ...plot.Thumbnailer) { c.d.add(label, thumbs...) }

// SetLabels replaces the axis labels.
func (c *Chart) SetLabels(xlabel, ylabel string) { c.d.xlabel, c.d.ylabel = xlabel, ylabel }

// Save renders the chart to an SVG file.
func (c *Chart) Save(path string) error { return c.d.save(path) }

// ChartColor is the i-th colour of the lab's palette.
func ChartColor(i int) color.Color { return chartPalette[i%len(chartPalette)] }

// ChartGrid is the lab's light grid.
func ChartGrid() *plotter.Grid { return chartGrid() }

// ChartText is a text style in the chart typeface.
func ChartText(size vg.Length, xa draw.XAlignment, ya draw.YAlignment) text.Style {
	return chartText(size, xa, ya)
}

// ChartScale sets a value axis over [lo, hi] as the lab's charts do: log
// when forced or the values span more than 100x, else linear from zero,
// with readable ticks formatted by format. It reports whether it chose log.
func ChartScale(a *plot.Axis, lo, hi float64, format func(float64) string, forceLog bool) bool {
	return chartScale(a, lo, hi, format, forceLog)
}

// ChartSI formats a tick value as a short SI number: 20M, 2.5k.
func ChartSI(v float64) string { return chartSI(v) }

// ChartDashes is the i-th dash pattern the lab uses for reference lines.
func ChartDashes(i int) []vg.Length { return chartCeilingDashes[i%len(chartCeilingDashes)] }

// ChartHLine is a horizontal reference line across the data area at Y,
// with a legend thumbnail.
type ChartHLine struct {
	Y     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (h ChartHLine) Plot(c draw.Canvas, p *plot.Plot) { chartHLine{h.Y, h.Style}.Plot(c, p) }

// DataRange implements plot.DataRanger.
func (h ChartHLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return chartHLine{h.Y, h.Style}.DataRange()
}

// Thumbnail implements plot.Thumbnailer.
func (h ChartHLine) Thumbnail(c *draw.Canvas) { chartHLine{h.Y, h.Style}.Thumbnail(c) }

// ChartSwatch is a legend thumbnail: a filled block of colour.
func ChartSwatch(c color.Color) plot.Thumbnailer { return chartSwatch{c} }
