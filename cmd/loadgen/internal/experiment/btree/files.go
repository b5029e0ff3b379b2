package btree

import (
	"io"

	"github.com/snowlab/snowlab/lab/result"
)

// WriteFiles writes the run into dir as a suite run's files are written,
// under the stem <date>-<host>-<sha>-btree: <stem>.json, <stem>.md and the
// charts under <stem>/. It returns the paths written.
func WriteFiles(dir string, run *Result) ([]string, error) {
	stem := run.Stem()
	return result.WriteFiles(dir, stem, run,
		func(w io.Writer) error { return WriteMarkdown(w, run, stem) },
		func(dir string) ([]string, error) { return WriteCharts(run, dir) })
}
