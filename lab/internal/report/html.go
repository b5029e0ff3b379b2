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

// writeHTML writes run as one self-contained HTML page: the sections of
// the Markdown report (host fingerprint, tables, how to read them,
// failures) with each chart drawn inline as SVG where its section is. It
// loads nothing: no script, no stylesheet, no font, no image from
// anywhere. The page links to the history, IndexName, beside it.
func writeHTML(w io.Writer, run *result.Run) error { return newDocument(run).writeHTML(w) }

// writeHTML writes d as one page titled by its first section, each
// section's charts inline at its end, linking to the history beside it.
func (d *document) writeHTML(w io.Writer) error {
	p := runPage{Title: "snowlab lab", Sections: d.Sections, Figures: map[*section][]figure{}, Index: IndexName}
	if len(d.Sections) > 0 {
		p.Title = d.Sections[0].Title
	}
	for _, s := range d.Sections {
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
	Busy                        bool   // host.Load.Busy
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
}

// loadCell is a run's load in the index's table: the share of the CPU
// time others took, or why there is none.
func loadCell(l *host.Load) string {
	switch {
	case l == nil:
		return "not recorded"
	case !l.Recorded():
		return "unknown"
	}
	s := "others " + host.Percent(l.Other)
	if l.Steal > 0 {
		s += " · steal " + host.Percent(l.Steal)
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
			Host: r.Host.String(), Page: hr.Page, Failures: len(r.Failures), Load: loadCell(r.Host.Load), Busy: r.Host.Load.Busy()})
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
	for _, t := range h.Ratios {
		f, err := inlineFigure("", trendChart(h, t, "ratio", ratioTick, styleOf))
		if err != nil {
			return err
		}
		if t.Gated {
			p.Gated = append(p.Gated, f)
		} else {
			p.Ungated = append(p.Ungated, f)
		}
	}
	for _, t := range h.Rates {
		t.Name += ": IDs/s"
		f, err := inlineFigure("", trendChart(h, t, "IDs per second", siTick, styleOf))
		if err != nil {
			return err
		}
		p.Rates = append(p.Rates, f)
	}
	for _, t := range h.Fairness {
		t.Name += ": fairness"
		f, err := inlineFigure("", trendChart(h, t, "deviation (%)", pctTick, styleOf))
		if err != nil {
			return err
		}
		p.Fairness = append(p.Fairness, f)
	}
	return pages.ExecuteTemplate(w, "index.html.tmpl", p)
}
