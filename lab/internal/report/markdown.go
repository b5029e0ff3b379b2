package report

import (
	"io"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

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
	return newDocument(run).writeMarkdown(w, chartDir)
}
