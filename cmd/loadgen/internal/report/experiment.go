package report

import (
	"io"

	"github.com/snowlab/snowlab/lab/host"
)

// Document is an experiment's report (lab/faults) laid out once and
// written both as Markdown and as one self-contained HTML page, as a
// suite run's report is, so that the two never say different things.
// Paragraphs and list items are Markdown inline markup (code spans,
// emphasis, links to sections); table cells are plain text.
type Document struct {
	d document
}

// Section is a heading and what follows it, up to the next.
type Section struct {
	s *section
}

// Section starts a section at the end of d: level 1 (the title, once),
// 2 or 3.
func (d *Document) Section(level int, title string) *Section {
	return &Section{d.d.section(min(max(level, 1), 3), title)}
}

// Host adds the "Host" section of a suite run's report for h, with its
// load and clock audit.
func (d *Document) Host(h host.Fingerprint) { writeHost(&d.d, h) }

// Text adds a paragraph.
func (s *Section) Text(t string) *Section { s.s.text(t); return s }

// List adds a bulleted list.
func (s *Section) List(items ...string) *Section { s.s.list(items...); return s }

// Table adds a table.
func (s *Section) Table(header []string, rows [][]string) *Section {
	s.s.table(header, rows)
	return s
}

// WriteMarkdown writes d as Markdown.
func (d *Document) WriteMarkdown(w io.Writer) error { return d.d.writeMarkdown(w, "") }

// WriteHTML writes d as one HTML page that loads nothing from anywhere,
// linking to the history page (IndexName) beside it.
func (d *Document) WriteHTML(w io.Writer) error {
	title := "snowlab lab"
	if len(d.d.Sections) > 0 {
		title = d.d.Sections[0].Title
	}
	return pages.ExecuteTemplate(w, "run.html.tmpl", runPage{Title: title, Sections: d.d.Sections, Index: IndexName})
}
