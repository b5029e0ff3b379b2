package lab

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// noteCuts says in a subject's note where its bursts or its steady run
// were cut to what its strict ceiling serves in the workload's ceiling
// budget (CeilingBudget, 500ms by default), so that the reports, which
// print the note beside the subject, say why its figures are of fewer
// IDs than the others'.
func noteCuts(run *result.Run) {
	for i := range run.Subjects {
		si := &run.Subjects[i]
		if cut := cutText(run, *si); cut != "" {
			si.Note = strings.TrimPrefix(si.Note+"; "+cut, "; ")
		}
	}
}

// Cuts lists, one line per subject, where the run cut a strict subject's
// bursts or steady run to what its ceiling serves in the workload's
// ceiling budget ("sony/sonyflake: cut to 500ms at its ceiling of
// 25.6k/s …"), for a caller that prints the run's table; Measure also
// appends each to the subject's note.
func Cuts(run *result.Run) []string {
	var out []string
	for _, si := range run.Subjects {
		if cut := cutText(run, si); cut != "" {
			out = append(out, si.Name+": "+cut)
		}
	}
	return out
}

// cutText says how the run cut si's workloads, "" where it did not.
func cutText(run *result.Run, si result.SubjectInfo) string {
	var cuts []string
	var budget time.Duration
	for _, b := range run.Burst {
		if b.Subject == si.Name && b.RequestedIDs > 0 {
			cuts = append(cuts, fmt.Sprintf("bursts of %s IDs, not %s", units.Thousands(b.IDs), units.Thousands(b.RequestedIDs)))
			budget = b.CeilingBudget
			break
		}
	}
	for _, st := range run.Steady {
		if st.Subject == si.Name && st.RequestedDuration > 0 {
			cuts = append(cuts, fmt.Sprintf("a steady schedule of %v at %s (%s calls), not %v",
				st.Duration, units.Rate(st.TargetRate), units.Thousands(int(math.Round(st.TargetRate*st.Duration.Seconds()))), st.RequestedDuration))
			budget = st.CeilingBudget
			break
		}
	}
	if len(cuts) == 0 {
		return ""
	}
	return fmt.Sprintf("cut to %v at its ceiling of %s (loadgen -ceiling-budget): %s", budget, units.Rate(si.CeilingIDs), strings.Join(cuts, "; "))
}
