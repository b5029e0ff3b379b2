package alternatives

import (
	"os"
	"path/filepath"

	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/redact"
)

// WriteFiles writes the run into dir as the lab's other results are
// written, under the stem <date>-<host>-<sha>-alternatives: <stem>.json,
// <stem>.md and the charts under <stem>/. It returns the paths written.
func WriteFiles(dir string, run *Run) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Execute redacts the command already; a Run built or edited
	// elsewhere is redacted here too, as a result file is committed.
	cp := *run
	cp.Command = redact.Args(run.Command)
	run = &cp
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
