package alternatives

import (
	"io"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// What only this package's tests call, kept out of the build.

// ran reports whether the experiment ran to the end.
func (c crashRun) ran() bool { return c.Skipped == "" && c.Error == "" }

// writeMarkdown writes the run as Markdown: the setup, the claims beside
// the measurements, the charts (from the folder charts, relative to the
// Markdown file, when set), every scheme's figures, the commit latency,
// the crash, the server, the host and how to read it all.
func writeMarkdown(w io.Writer, run *runResult, charts string) error {
	return document(run).WriteMarkdown(w, charts)
}

// readResult reads an alternatives result file, refusing one of another
// experiment or schema.
func readResult(path string) (*runResult, error) {
	var run runResult
	if err := resultdir.ReadExperiment(path, experimentName, schemaVersion, &run); err != nil {
		return nil, err
	}
	return &run, nil
}
