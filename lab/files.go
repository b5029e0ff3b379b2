package lab

import (
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/result"
)

// WriteFiles writes a run into dir as loadgen writes the suite's: the
// result <stem>.json (<date>-<host>-<commit>), the Markdown report <stem>.md,
// the charts under <stem>/ and the same report as one self-contained
// page, <stem>.html. It returns the paths written. A run of your own
// subjects (Suite.Measure) gets the same report, charts and page as
// snowlab's, and loadgen compare and loadgen history read its JSON.
func WriteFiles(dir string, run *result.Run) ([]string, error) { return report.WriteFiles(dir, run) }
