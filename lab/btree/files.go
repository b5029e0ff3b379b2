package btree

import (
	"os"
	"path/filepath"

	"github.com/snowlab/snowlab/lab"
)

// WriteFiles writes the run into dir as a suite run's files are written,
// under the stem <date>-<host>-<sha>-btree: <stem>.json, <stem>.md and the
// charts under <stem>/. It returns the paths written.
func WriteFiles(dir string, run *Run) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	stem := filepath.Join(dir, run.Stem())
	var paths []string
	if err := lab.WriteJSONFile(stem+".json", run); err != nil {
		return nil, err
	}
	paths = append(paths, stem+".json")
	f, err := os.Create(stem + ".md")
	if err != nil {
		return paths, err
	}
	err = WriteMarkdown(f, run, run.Stem())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return paths, err
	}
	paths = append(paths, stem+".md")
	charts, err := WriteCharts(run, stem)
	return append(paths, charts...), err
}
