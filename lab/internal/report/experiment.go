package report

import (
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// Document is an experiment's report (faults, gates, contention)
// laid out once and written as Markdown, as one
// self-contained HTML page and as the SVG files of its charts, by the
// writers that write a suite run's report, so that the two reports never
// say different things and every experiment gets both. Paragraphs, list
// items and table cells are Markdown inline markup (code spans, emphasis,
// links to sections).
type Document struct {
	d document
}

// docSection is a heading and what follows it, up to the next.
type docSection struct {
	s *section
}

// Section starts a section at the end of d: level 1 (the title, once),
// 2 or 3.
func (d *Document) Section(level int, title string) *docSection {
	return &docSection{d.d.section(min(max(level, 1), 3), title)}
}

// Host adds the "Host" section of a suite run's report for h, with its
// load and clock audit.
func (d *Document) Host(h result.Host) { writeHost(&d.d, h) }

// Text adds a paragraph.
func (s *docSection) Text(t string) *docSection { s.s.text(t); return s }

// Prose adds the paragraphs of text, which blank lines separate: a note
// on how to read a report, kept as one piece of Markdown.
func (s *docSection) Prose(text string) *docSection {
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		s.s.text(strings.TrimSpace(p))
	}
	return s
}

// List adds a bulleted list.
func (s *docSection) List(items ...string) *docSection { s.s.list(items...); return s }

// Table adds a table.
func (s *docSection) Table(header []string, rows [][]string) *docSection {
	s.s.table(header, rows)
	return s
}

// Chart adds c at the end of the section, saved as the SVG file named
// file, alt its text alternative; a nil chart (nothing to draw) adds
// nothing.
func (s *docSection) Chart(file, alt string, c *plot.Chart) *docSection {
	s.s.chart(file, alt, c)
	return s
}

// WriteMarkdown writes d as Markdown, linking the charts as images in the
// folder charts (relative to the Markdown file); with charts "" they are
// left out.
func (d *Document) WriteMarkdown(w io.Writer, charts string) error {
	return d.d.writeMarkdown(w, charts)
}

// WriteHTML writes d as one HTML page that loads nothing from anywhere,
// its charts inline, linking to the history page (IndexName) beside it.
func (d *Document) WriteHTML(w io.Writer) error { return d.d.writeHTML(w) }

// WriteText writes the sections of d whose title keep accepts for a
// terminal: the title, then the paragraphs, list items and tables, the
// tables in aligned columns, the markup dropped. It is the table an
// experiment prints after a run, so that the terminal and the report
// files say the same things from one text.
func (d *Document) WriteText(w io.Writer, keep func(title string) bool) error {
	ew := md.NewWriter(w)
	for _, s := range d.d.Sections {
		if !keep(s.Title) {
			continue
		}
		ew.Printf("== %s ==\n", plain(s.Title))
		for _, b := range s.Blocks {
			switch {
			case b.Table != nil:
				tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
				for _, row := range append([][]string{b.Table.Header}, b.Table.Rows...) {
					for i, c := range row {
						fmt.Fprint(tw, plain(c))
						if i < len(row)-1 {
							fmt.Fprint(tw, "\t")
						}
					}
					fmt.Fprintln(tw)
				}
				tw.Flush()
			case b.Items != nil:
				for _, it := range b.Items {
					ew.Printf("- %s\n", plain(it))
				}
			default:
				ew.Printf("%s\n", plain(b.Text))
			}
		}
		ew.Printf("\n")
	}
	return ew.Err()
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// plain is Markdown inline markup as text: what the HTML page shows
// (inlineHTML), its tags dropped.
func plain(s string) string {
	return html.UnescapeString(htmlTag.ReplaceAllString(string(inlineHTML(s)), ""))
}

// WriteFiles writes the result v of the experiment h heads into dir as
// a suite run's are written: <stem>.json, <stem>.md, the charts under
// <stem>/ and <stem>.html (resultdir.ExperimentStem). It returns the
// paths written.
func (d *Document) WriteFiles(dir string, h *result.Header, v any) ([]string, error) {
	return writeFiles(dir, resultdir.ExperimentStem(h), v, &d.d)
}
