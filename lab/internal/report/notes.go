package report

import (
	_ "embed"
	"fmt"
	"strings"
)

// notesText holds the "how to read this" note of each table of a run's
// reports, prose kept apart from the code that lays the tables out.
//
//go:embed notes.md
var notesText string

// notes parses notesText: a note per "## key" heading, its lines joined
// with spaces; the lines before the first heading are comments.
func notes() map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(notesText, "\n## ")[1:] {
		key, body, _ := strings.Cut(part, "\n")
		out[strings.TrimSpace(key)] = strings.Join(strings.Fields(body), " ")
	}
	return out
}

// note is the note keyed key in notes.md. A key it lacks is a mistake in
// this package, which the tests of every section catch.
func note(key string) string {
	n, ok := notes()[key]
	if !ok {
		panic(fmt.Sprintf("report: no note %q in notes.md", key))
	}
	return n
}
