// Package report turns lab results (lab/result) into what people read: a
// Markdown report with a note under each table on how to read it
// (writeMarkdown), the same report as one self-contained HTML page with
// its charts inline (writeHTML), a compact table for the terminal
// (WriteTable), SVG charts (writeCharts) in the house style of
// lab/internal/plot, and the history of many runs as one HTML page
// (NewHistory groups the runs' ratios, rates and fairness by host,
// WriteIndex draws them). The Markdown and HTML reports render one
// document (sections.go lays it out), so they never say different things;
// an experiment's report (faults, gates, contention) is a Document written
// by the same writers, its charts naming the host as a suite run's do. It
// formats; it measures and compares nothing.
package report
