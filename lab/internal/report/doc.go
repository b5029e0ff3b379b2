// Package report turns lab results (lab/result) into what people read: a
// Markdown report with a note under each table on how to read it, the
// same report as one self-contained HTML page with its charts inline, the
// same again as text for the terminal (WriteTable), SVG charts in the
// house style of lab/internal/plot, and the history of many runs as one
// HTML page (NewHistory groups the runs' ratios, rates and fairness by
// host, WriteIndex draws them). Every report renders one Document
// (sections.go lays a suite run's out), so they never say different
// things; an experiment's report (faults, gates, contention) is a
// Document too, its charts naming the host as a suite run's do. It
// formats; it measures and compares nothing.
package report
