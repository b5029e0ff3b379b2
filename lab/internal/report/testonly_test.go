package report

import (
	"io"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// What only this package's tests call, kept out of the build.

// writeHTML writes run as one self-contained HTML page: the sections of
// the Markdown report (host fingerprint, tables, how to read them,
// failures) with each chart drawn inline as SVG where its section is. It
// loads nothing: no script, no stylesheet, no font, no image from
// anywhere. The page links to the history, IndexName, beside it.
func writeHTML(w io.Writer, run *result.Run) error { return newDocument(run).WriteHTML(w) }

// writeMarkdown writes a Markdown summary of run: where and how it ran,
// the host and its clocks, the subjects, one table per workload with a
// note on how to read it, and the failures. It links the charts
// writeCharts draws as images under the folder <stem>/ beside it, where
// WriteFiles puts them.
func writeMarkdown(w io.Writer, run *result.Run) error {
	chartDir := ""
	if run != nil {
		chartDir = resultdir.Stem(run)
	}
	return newDocument(run).WriteMarkdown(w, chartDir)
}

// chartsOf is the charts of run's report, in the order it shows them.
func chartsOf(run *result.Run) []chartSpec {
	var out []chartSpec
	for _, s := range newDocument(run).sections {
		out = append(out, s.Charts...)
	}
	return out
}
