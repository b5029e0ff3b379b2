package report

import (
	"io"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/plot"
)

// document is a report laid out but not yet written: sections of tables,
// paragraphs and lists, whose text is Markdown inline markup (code spans,
// emphasis, links to sections). The Markdown and HTML writers render the
// same document, so that the two reports of a run never say different
// things.
type document struct {
	Sections []*section
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
}

type table struct {
	Header []string
	Rows   [][]string
}

// section starts a new section at the end of d.
func (d *document) section(level int, title string) *section {
	s := &section{Level: level, Title: title}
	d.Sections = append(d.Sections, s)
	return s
}

// find is the section titled title, nil if none.
func (d *document) find(title string) *section {
	for _, s := range d.Sections {
		if s.Title == title {
			return s
		}
	}
	return nil
}

// ID is the section's anchor, as GitHub derives it from a heading:
// lower case, spaces as hyphens (what [Failures](#failures) links to).
func (s *section) ID() string {
	return strings.ReplaceAll(strings.ToLower(s.Title), " ", "-")
}

func (s *section) text(t string)        { s.Blocks = append(s.Blocks, block{Text: t}) }
func (s *section) list(items ...string) { s.Blocks = append(s.Blocks, block{Items: items}) }
func (s *section) table(header []string, rows [][]string) {
	s.Blocks = append(s.Blocks, block{Table: &table{Header: header, Rows: rows}})
}

// chart adds c to s, saved as file; a nil chart (the run has no data for
// it) adds nothing.
func (s *section) chart(file, alt string, c *plot.Chart) {
	if c != nil {
		s.Charts = append(s.Charts, chartSpec{name: file, section: s.Title, alt: alt, chart: c})
	}
}

// writeCharts saves the charts of every section as SVG files in dir, in
// the order the document shows them, and returns the paths written.
func (d *document) writeCharts(dir string) ([]string, error) {
	var names []string
	charts := map[string]*plot.Chart{}
	for _, s := range d.Sections {
		for _, c := range s.Charts {
			names, charts[c.name] = append(names, c.name), c.chart
		}
	}
	return plot.SaveAll(dir, names, charts)
}

// writeMarkdown writes d as Markdown; a section's charts are linked as
// images under chartDir (none when chartDir is "").
func (d *document) writeMarkdown(w io.Writer, chartDir string) error {
	e := md.NewWriter(w)
	for _, s := range d.Sections {
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
		if chartDir == "" {
			continue
		}
		for _, c := range s.Charts {
			e.Printf("![%s](%s/%s)\n\n", c.alt, chartDir, c.name)
		}
	}
	return e.Err()
}
