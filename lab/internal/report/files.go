package report

import (
	"io"
	"path/filepath"

	"github.com/snowlab/snowlab/lab/result"
)

// WriteFiles writes the run into dir: <stem>.json, the Markdown report
// <stem>.md, the charts under <stem>/ (see result.Stem) and the same
// report as one self-contained page, <stem>.html. It returns the paths
// written.
func WriteFiles(dir string, run *result.Run) ([]string, error) {
	paths, err := result.WriteFiles(dir, run.Stem(), run,
		func(w io.Writer) error { return writeMarkdown(w, run) },
		func(dir string) ([]string, error) { return writeCharts(run, dir) })
	if err != nil {
		return paths, err
	}
	page := filepath.Join(dir, run.Stem()+".html")
	if err := result.WriteFile(page, func(w io.Writer) error { return writeHTML(w, run) }); err != nil {
		return paths, err
	}
	return append(paths, page), nil
}
