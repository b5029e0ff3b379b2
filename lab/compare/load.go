package compare

import (
	"strings"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/result"
)

// loadNote says how the loads the two runs' hosts were under differ
// (host.LoadDifference, the one rule the reports use), "" when they do
// not or either is not recorded.
func loadNote(old, new result.Host) string { return host.LoadDifference(old.Load, new.Load) }

// writeLoad prints a host's load on a line of its own, indented under
// the line naming the host ("load not recorded" for an older lab's run).
func writeLoad(ew *md.Writer, under string, h result.Host) {
	ew.Printf("%s%s\n", strings.Repeat(" ", len(under)), h.Load)
}

// writeLoadNote warns that the loads differ: a busy host's steady p99 is
// its scheduler's, and would read as the code's regression.
func writeLoadNote(ew *md.Writer, note string) {
	if note != "" {
		ew.Printf("WARNING: the hosts' loads differ (%s): absolute figures, tail latencies most of all, "+
			"may differ by the host's doing, not the code's\n", note)
	}
}
