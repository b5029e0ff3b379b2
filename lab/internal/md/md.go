package md

import (
	"fmt"
	"io"
	"strings"
)

// Writer keeps the first write error, so that a report can print line
// after line and check once at the end. After an error it writes nothing.
type Writer struct {
	w   io.Writer
	err error
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Err is the first write error, or nil.
func (e *Writer) Err() error { return e.err }

// Write implements io.Writer, so that a tabwriter can write through e.
func (e *Writer) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// Printf writes a formatted line or part of one.
func (e *Writer) Printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }

// Table writes a Markdown table and a blank line; cells are escaped.
func (e *Writer) Table(header []string, rows [][]string) {
	line := func(cells []string) {
		for _, c := range cells {
			e.Printf("| %s ", cell.Replace(c))
		}
		e.Printf("|\n")
	}
	line(header)
	e.Printf("|%s|\n", strings.TrimSuffix(strings.Repeat("---|", len(header)), "|"))
	for _, r := range rows {
		line(r)
	}
	e.Printf("\n")
}

// Escape escapes the characters that Markdown would read as markup in
// running text.
func Escape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "\n", " ")
	return r.Replace(s)
}

// cell escapes a table cell: pipes and newlines would break the row.
var cell = strings.NewReplacer("|", `\|`, "\n", " ", "\r", "")

// Code writes s as a code span, with enough backticks around it.
func Code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// ShellJoin joins a command line for display, quoting the arguments a
// shell would split or expand.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// OrDash is s, or "—" when s is empty or blank: a missing figure is shown
// as missing.
func OrDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// EscapeRows escapes every cell of rows in place (Escape) and returns
// them, for a table of plain text.
func EscapeRows(rows [][]string) [][]string {
	for _, row := range rows {
		for i := range row {
			row[i] = Escape(row[i])
		}
	}
	return rows
}
