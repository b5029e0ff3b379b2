// Package report turns one lab result (lab/result) into what people read:
// a Markdown report with a note under each table on how to read it
// (WriteMarkdown), a compact table for the terminal (WriteTable), and SVG
// charts (WriteCharts) in the house style of lab/internal/plot. It
// formats; it measures and compares nothing. WriteHost and Subtitle let an
// experiment's report (lab/btree) name its host as a suite run's does.
package report
