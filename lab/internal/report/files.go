package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// WriteFiles writes the run into dir: <stem>.json, the Markdown report
// <stem>.md, the charts under <stem>/ (see resultdir.Stem) and the same
// report as one self-contained page, <stem>.html. It returns the paths
// written.
func WriteFiles(dir string, run *result.Run) ([]string, error) {
	return writeFiles(dir, resultdir.Stem(run), run, newDocument(run))
}

// writeFiles writes the result v and its report d into dir, as a suite
// run's and every experiment's are written: v as <stem>.json, d as
// <stem>.md linking the charts drawn under <stem>/, and d as one page,
// <stem>.html. It returns the paths written, also those written before
// an error.
func writeFiles(dir, stem string, v any, d *Document) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, stem)
	if err := resultdir.WriteJSON(base+".json", v); err != nil {
		return nil, err
	}
	paths := []string{base + ".json"}
	var md bytes.Buffer
	if err := d.WriteMarkdown(&md, stem); err != nil {
		return paths, err
	}
	if err := resultdir.WriteFile(base+".md", md.Bytes()); err != nil {
		return paths, err
	}
	paths = append(paths, base+".md")
	charts, err := d.writeCharts(base)
	paths = append(paths, charts...)
	if err != nil {
		return paths, err
	}
	var page bytes.Buffer
	if err := d.WriteHTML(&page); err != nil {
		return paths, err
	}
	if err := resultdir.WriteFile(base+".html", page.Bytes()); err != nil {
		return paths, err
	}
	return append(paths, base+".html"), nil
}

// terminalLeaves are the sections of a run's report the terminal leaves
// out: the host's details and the subjects, which the files keep (the
// summary names the host, its load and a busy host's warning).
var terminalLeaves = []string{"Host", "Clock audit", "Subjects"}

// WriteTable writes run's report for a terminal (Document.WriteText):
// the summary, a table per workload and the failures, as the files say
// them, the notes on how to read them left to the files.
func WriteTable(w io.Writer, run *result.Run) error {
	return newDocument(run).WriteText(w, func(title string) bool { return !slices.Contains(terminalLeaves, title) })
}
