package lab

import (
	"io"
	"time"

	"github.com/snowlab/snowlab/lab/internal/md"
)

// This file exports the pieces of the lab's result files, reports and
// charts that an experiment in its own package (lab/btree) needs to write
// its results the way a suite run does: the same file names, the same
// JSON writing, the same Markdown tables and host section, and charts in
// the same fonts, colours and layout.

// Stem names an experiment's files: <date>-<host>-<short sha>, exactly as
// Run.Stem names a suite run's ("+dirty" becomes "-dirty", no sha
// "nosha"). An experiment appends its own suffix (e.g. "-btree").
func Stem(started time.Time, host Fingerprint, commit string) string {
	return (&Run{Started: started, Host: host, Commit: commit}).Stem()
}

// WriteJSONFile writes v as indented JSON to path through a temporary file
// renamed into place, as result files are written.
func WriteJSONFile(path string, v any) error { return writeJSON(path, v) }

// MarkdownHost writes the "## Host" section of a run's report (and the
// clock audit) for the fingerprint f.
func MarkdownHost(w io.Writer, f Fingerprint) error {
	e := md.NewWriter(w)
	reportHost(e, &Run{Host: f})
	return e.Err()
}

// ChartSubtitle is the subtitle of a chart of a run on host at commit.
func ChartSubtitle(host Fingerprint, commit string) string {
	return chartHost(&Run{Host: host, Commit: commit})
}
