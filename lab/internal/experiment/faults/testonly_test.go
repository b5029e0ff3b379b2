package faults

import "io"

// What only this package's tests call, kept out of the build.

// writeMarkdown writes run's report as Markdown.
func writeMarkdown(w io.Writer, run *runResult) error { return document(run).WriteMarkdown(w, "") }
