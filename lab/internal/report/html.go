package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"regexp"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// pages holds the page templates: run.html.tmpl (one run), index.html.tmpl
// (the history) and layout.html.tmpl, the head and style they share.
var pages = template.Must(template.New("pages").Funcs(template.FuncMap{"inline": inlineHTML}).
	ParseFS(templateFS, "templates/*.tmpl"))

// IndexName is the history page's file name in a results folder; each run's
// page links to it.
const IndexName = "index.html"

// figure is a chart as a page shows it: inline SVG with a caption.
type figure struct {
	Caption string
	SVG     template.HTML
}

// runPage is what run.html.tmpl renders.
type runPage struct {
	Title    string
	Sections []*section
	Figures  map[*section][]figure
	Index    string
}

// WriteHTML writes d as one HTML page that loads nothing from anywhere,
// titled by its first section, each section's charts inline at its end,
// linking to the history page (IndexName) beside it.
func (d *Document) WriteHTML(w io.Writer) error {
	p := runPage{Title: "snowlab lab", Sections: d.sections, Figures: map[*section][]figure{}, Index: IndexName}
	if len(d.sections) > 0 {
		p.Title = d.sections[0].Title
	}
	for _, s := range d.sections {
		for _, c := range s.Charts {
			f, err := inlineFigure(c.alt, c.chart)
			if err != nil {
				return err
			}
			p.Figures[s] = append(p.Figures[s], f)
		}
	}
	return pages.ExecuteTemplate(w, "run.html.tmpl", p)
}

// svgPrologue is what an SVG file has and an SVG inside HTML must not (the
// XML declaration) or need not (the namespace declarations, which the
// HTML parser supplies).
var svgPrologue = regexp.MustCompile(`<\?xml[^>]*\?>\s*|\s+xmlns(:xlink)?="[^"]*"`)

// inheritedFont is the font an SVG file's text names on every element,
// and a page's SVG inherits from the page's body (the same face stack,
// upright and of normal weight): on the history page, with more than a
// hundred charts, it was 221 kB of 957 kB.
var inheritedFont = []byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;font-variant:normal;font-weight:normal;font-style:normal;")

// inlineFigure renders c for a page. The SVG is gonum's, whose text it
// escapes, so it is safe to put in the page as it is.
func inlineFigure(caption string, c *plot.Chart) (figure, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return figure{}, err
	}
	svg := bytes.ReplaceAll(svgPrologue.ReplaceAll(buf.Bytes(), nil), inheritedFont, nil)
	return figure{Caption: caption, SVG: template.HTML(svg)}, nil
}

// indexRun is a row of the index's table of runs.
type indexRun struct {
	N                           int
	Date, Commit, HostKey, Host string
	Page                        string
	Failures                    int
	Load                        string // the CPU others took, or why it is not known
	Busy                        bool   // host.Busy
}

// indexPage is what index.html.tmpl renders.
type indexPage struct {
	Title          string
	Runs           []indexRun
	Hosts          int
	Gated, Ungated []figure
	Rates          []figure
	Fairness       []figure
	LoadChanges    []string
	// Changes are the change points of the gated series, a line each;
	// Gated counts the gated ratios searched.
	Changes    []string
	GatedCount int
	// Short are the reported figures with fewer than minTrendPoints runs
	// on every host: a table row each (name, latest value) instead of a
	// chart, which would draw one or two points.
	Short []shortTrend
}

// minTrendPoints is the fewest runs on one host that earn a reported
// figure a chart: the history of 13 runs drew 126 charts (771 KB), most
// with one or two points, which say no more than the latest value.
const minTrendPoints = 3

// shortTrend is a reported figure too short to chart.
type shortTrend struct{ Name, Latest string }

// longest is the most points any series of t has.
func longest(t trend) int {
	n := 0
	for _, s := range t.Series {
		n = max(n, len(s.Points))
	}
	return n
}

// latest is t's newest point, with its host.
func latest(t trend, format func(float64) string) string {
	best, run, host := 0.0, -1, ""
	for _, s := range t.Series {
		if p := s.Points[len(s.Points)-1]; p.Run > run {
			best, run, host = p.Value, p.Run, s.Host
		}
	}
	return fmt.Sprintf("%s (#%d, %s)", format(best), run, host)
}

// ChangeLines are h's gated change points, a line each, as the page and
// loadgen history say them.
func ChangeLines(h History) []string {
	var out []string
	for _, t := range h.Ratios {
		for _, c := range t.Changes {
			out = append(out, fmt.Sprintf("%s on %s: %s → %s (%+.1f%%) at #%d (%s), p=%.3g", t.Name, c.Host,
				units.Count(c.Before), units.Count(c.After), 100*(c.After/c.Before-1), c.Run, shortRevision(h.Runs[c.Run].Run.Revision()), c.P))
		}
	}
	return out
}

// addTrends adds h's trends to the page: every gated ratio as a chart
// (captioned with its change points), the reported ones and the rates
// and fairness as charts where a host has minTrendPoints runs of them,
// else as rows of Short.
func (p *indexPage) addTrends(h History, styleOf func(string) plot.SeriesStyle) error {
	for _, k := range []struct {
		trends         []trend
		suffix, ylabel string
		format         func(float64) string
		into           *[]figure // where a chart goes when not gated
	}{
		{h.Ratios, "", "ratio", units.Count, &p.Ungated},
		{h.Rates, ": IDs/s", "IDs per second", siTick, &p.Rates},
		{h.Fairness, ": fairness", "deviation (%)", pctTick, &p.Fairness},
	} {
		for _, t := range k.trends {
			t.Name += k.suffix
			if !t.Gated && longest(t) < minTrendPoints {
				p.Short = append(p.Short, shortTrend{t.Name, latest(t, k.format)})
				continue
			}
			f, err := inlineFigure("", trendChart(h, t, k.ylabel, k.format, styleOf))
			if err != nil {
				return err
			}
			if !t.Gated {
				*k.into = append(*k.into, f)
				continue
			}
			p.GatedCount++
			for _, c := range t.Changes {
				f.Caption += fmt.Sprintf("Change point at #%d (%s) on %s: %s → %s. ", c.Run,
					shortRevision(h.Runs[c.Run].Run.Revision()), c.Host, units.Count(c.Before), units.Count(c.After))
			}
			p.Gated = append(p.Gated, f)
		}
	}
	return nil
}

// loadCell is a run's load in the index's table: the share of the CPU
// time others took, or why there is none.
func loadCell(l *result.Load) string {
	switch {
	case l == nil:
		return "not recorded"
	case !l.Recorded():
		return "unknown"
	}
	s := "others " + result.Percent(l.Other)
	if l.Steal > 0 {
		s += " · steal " + result.Percent(l.Steal)
	}
	return s
}

func pctTick(v float64) string { return units.TrimSig(v, 3) + "%" }

// WriteIndex writes the history h as one self-contained HTML page: the
// trends of the ratios the gate checks first, then a table of the runs
// (date, commit, host, the load it was under, link to each run's page),
// then the ratios the gate only reports, the IDs/s of each subject and
// its fairness, with a line per host; runs whose load differs from the previous run's
// on their host are listed at the top.
func WriteIndex(w io.Writer, h History) error {
	p, err := newIndexPage(h)
	if err != nil {
		return err
	}
	return pages.ExecuteTemplate(w, "index.html.tmpl", p)
}

// newIndexPage is the history page's content.
func newIndexPage(h History) (indexPage, error) {
	p := indexPage{Title: "snowlab lab: history of runs"}
	hosts := map[string]bool{}
	for i, hr := range h.Runs {
		r := hr.Run
		date := "unknown"
		if !r.Started.IsZero() {
			date = r.Started.UTC().Format("2006-01-02 15:04 UTC")
		}
		hosts[hostKey(r)] = true
		p.Runs = append(p.Runs, indexRun{N: i, Date: date, Commit: md.OrDash(r.Revision()), HostKey: hostKey(r),
			Host: r.Host.String(), Page: hr.Page, Failures: len(r.Failures), Load: loadCell(r.Host.Load), Busy: host.Busy(r.Host.Load)})
	}
	p.Hosts = len(hosts)
	for _, c := range h.LoadChanges {
		p.LoadChanges = append(p.LoadChanges, fmt.Sprintf("#%d (%s) after #%d (%s) on %s: %s",
			c.Run, shortRevision(h.Runs[c.Run].Run.Revision()), c.Previous, shortRevision(h.Runs[c.Previous].Run.Revision()),
			c.Host, c.Difference))
	}
	// One style per series name across the page: a host looks the same in
	// every chart.
	styles := map[string]int{}
	styleOf := func(key string) plot.SeriesStyle {
		i, ok := styles[key]
		if !ok {
			i = len(styles)
			styles[key] = i
		}
		return plot.Series(i)
	}
	p.Changes = ChangeLines(h)
	return p, p.addTrends(h, styleOf)
}
