package alternatives

import (
	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// writeFiles writes the run into dir as the lab's other results are
// written, under the stem <date>-<host>-<sha>-alternatives: <stem>.json,
// <stem>.md, the charts under <stem>/ and <stem>.html. It returns the
// paths written.
func writeFiles(dir string, run *runResult) ([]string, error) {
	// execute redacts the command already; a runResult built or edited
	// elsewhere is redacted here too, as a result file is committed.
	cp := *run
	cp.Command = resultdir.RedactArgs(run.Command)
	run = &cp
	return document(run).WriteFiles(dir, &run.Header, run)
}
