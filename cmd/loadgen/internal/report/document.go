package report

import (
	"io"
	"strings"

	"github.com/snowlab/snowlab/lab/md"
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

// block is one of a paragraph, a list or a table. Table cells are plain
// text; paragraphs and list items are Markdown inline.
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
