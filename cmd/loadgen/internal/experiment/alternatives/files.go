package alternatives

import (
	"io"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/redact"
	"github.com/snowlab/snowlab/lab/result"
)

// WriteFiles writes the run into dir as the lab's other results are
// written, under the stem <date>-<host>-<sha>-alternatives: <stem>.json,
// <stem>.md and the charts under <stem>/. It returns the paths written.
func WriteFiles(dir string, run *Result) ([]string, error) {
	// Execute redacts the command already; a Result built or edited
	// elsewhere is redacted here too, as a result file is committed.
	cp := *run
	cp.Command = redact.Args(run.Command)
	run = &cp
	stem := run.Stem()
	return result.WriteFiles(dir, stem, run,
		func(w io.Writer) error { return WriteMarkdown(w, run, stem) },
		func(dir string) ([]string, error) { return WriteCharts(run, dir) })
}
