package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// Document is a report laid out but not yet written: sections of tables,
// paragraphs and lists, whose text is Markdown inline markup (code spans,
// emphasis, links to sections), and the charts drawn for them. A suite
// run's report (newDocument) and every experiment's (faults, gates,
// contention) are one, written by the same writers as Markdown, as one
// self-contained HTML page, as the SVG files of its charts and as text
// for a terminal, so that no two of them ever say different things.
type Document struct {
	sections []*section
}

// section is a heading (level 1 to 3) and what follows it up to the next.
type section struct {
	Level  int
	Title  string
	Blocks []block
	Charts []chartSpec // the charts drawn for this section
}

// block is one of a paragraph, a list or a table. Paragraphs, list items
// and table cells are Markdown inline, which the HTML page renders as
// GitHub renders the Markdown file.
type block struct {
	Text  string
	Items []string
	Table *table
	// Note is set on a table's "how to read this" paragraph, which the
	// files carry and a terminal leaves out.
	Note bool
}

type table struct {
	Header []string
	Rows   [][]string
}

// Section starts a section at the end of d: level 1 (the title, once),
// 2 or 3.
func (d *Document) Section(level int, title string) *section {
	s := &section{Level: min(max(level, 1), 3), Title: title}
	d.sections = append(d.sections, s)
	return s
}

// ID is the section's anchor, as GitHub derives it from a heading:
// lower case, spaces as hyphens (what [Failures](#failures) links to).
func (s *section) ID() string {
	return strings.ReplaceAll(strings.ToLower(s.Title), " ", "-")
}

// Text adds a paragraph.
func (s *section) Text(t string) *section {
	s.Blocks = append(s.Blocks, block{Text: t})
	return s
}

// Prose adds the paragraphs of text, which blank lines separate: a note
// on how to read a report, kept as one piece of Markdown.
func (s *section) Prose(text string) *section {
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		s.Text(strings.TrimSpace(p))
	}
	return s
}

// note adds the note keyed key in notes.md, on how to read the section.
func (s *section) note(key string) {
	s.Blocks = append(s.Blocks, block{Text: note(key), Note: true})
}

// List adds a bulleted list.
func (s *section) List(items ...string) *section {
	s.Blocks = append(s.Blocks, block{Items: items})
	return s
}

// Table adds a table.
func (s *section) Table(header []string, rows [][]string) *section {
	s.Blocks = append(s.Blocks, block{Table: &table{Header: header, Rows: rows}})
	return s
}

// Chart adds c at the end of the section, saved as the SVG file named
// file, alt its text alternative; a nil chart (nothing to draw) adds
// nothing.
func (s *section) Chart(file, alt string, c *plot.Chart) *section {
	if c != nil {
		s.Charts = append(s.Charts, chartSpec{name: file, alt: alt, chart: c})
	}
	return s
}

// writeCharts saves the charts of every section as SVG files in dir, in
// the order the document shows them, and returns the paths written. dir
// is created when there is something to write.
func (d *Document) writeCharts(dir string) ([]string, error) {
	var paths []string
	for _, s := range d.sections {
		for _, c := range s.Charts {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return paths, err
			}
			path := filepath.Join(dir, c.name)
			var svg bytes.Buffer
			_, err := c.chart.WriteTo(&svg)
			if err == nil {
				err = resultdir.WriteFile(path, svg.Bytes())
			}
			if err != nil {
				return paths, fmt.Errorf("chart %s: %w", c.name, err)
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// WriteMarkdown writes d as Markdown, linking the charts as images in the
// folder charts (relative to the Markdown file); with charts "" they are
// left out.
func (d *Document) WriteMarkdown(w io.Writer, charts string) error {
	e := md.NewWriter(w)
	for _, s := range d.sections {
		e.Printf("%s %s\n\n", strings.Repeat("#", s.Level), s.Title)
		for _, b := range s.Blocks {
			switch {
			case b.Table != nil:
				e.Table(b.Table.Header, b.Table.Rows)
			case b.Items != nil:
				for _, it := range b.Items {
					e.Printf("- %s\n", it)
				}
				e.Printf("\n")
			default:
				e.Printf("%s\n\n", b.Text)
			}
		}
		if charts == "" {
			continue
		}
		for _, c := range s.Charts {
			e.Printf("![%s](%s/%s)\n\n", c.alt, charts, c.name)
		}
	}
	return e.Err()
}

// WriteText writes the sections of d whose title keep accepts for a
// terminal: the title, then the paragraphs, list items and tables, the
// tables in aligned columns, the markup and the notes on how to read a
// table dropped. It is what a run prints when it ends, so that the
// terminal and the report files say the same things from one text.
func (d *Document) WriteText(w io.Writer, keep func(title string) bool) error {
	ew := md.NewWriter(w)
	for _, s := range d.sections {
		if !keep(s.Title) {
			continue
		}
		ew.Printf("== %s ==\n", plain(s.Title))
		for _, b := range s.Blocks {
			switch {
			case b.Note:
			case b.Table != nil:
				tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
				for _, row := range append([][]string{b.Table.Header}, b.Table.Rows...) {
					cells := make([]string, len(row))
					for i, c := range row {
						cells[i] = plain(c)
					}
					fmt.Fprintln(tw, strings.Join(cells, "\t"))
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
	return writeFiles(dir, resultdir.ExperimentStem(h), v, d)
}
