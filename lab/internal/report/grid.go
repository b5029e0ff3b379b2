package report

import (
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// The lookups every section of a report shares.

type satKey struct {
	subject    string
	goroutines int
}

// satGrid arranges the saturate results as subject rows (in the
// order of run.Subjects, then of first appearance) by goroutine columns.
func satGrid(run *result.Run) (gs []int, names []string, cell map[satKey]result.SaturateResult) {
	cell = make(map[satKey]result.SaturateResult)
	seen := make(map[string]bool)
	for _, r := range run.Saturate {
		if !slices.Contains(gs, r.Goroutines) {
			gs = append(gs, r.Goroutines)
		}
		seen[r.Subject] = true
		cell[satKey{r.Subject, r.Goroutines}] = r
	}
	slices.Sort(gs)
	names = subjectOrder(run, seen)
	return gs, names, cell
}

// subjectOrder returns the keys of present in run.Subjects order,
// followed by any others in their sorted order.
func subjectOrder[V any](run *result.Run, present map[string]V) []string {
	var names []string
	for _, s := range run.Subjects {
		if _, ok := present[s.Name]; ok && !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	var rest []string
	for n := range present {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

func subjectInfo(run *result.Run, name string) (result.SubjectInfo, bool) {
	for _, s := range run.Subjects {
		if s.Name == name {
			return s, true
		}
	}
	return result.SubjectInfo{}, false
}

// ceilingOf is the subject's strict ceiling in IDs/s, 0 if none.
func ceilingOf(run *result.Run, name string) float64 {
	if s, ok := subjectInfo(run, name); ok && s.CeilingIDs > 0 {
		return s.CeilingIDs
	}
	return 0
}

// ceilingPct is r's percentage of its strict ceiling: the recorded one,
// else computed from the subject's ceiling; 0 when the subject has none or
// is known not to be strict (a monotonic generator may pass the layout's
// ceiling by running ahead, and a percentage would only mislead).
func ceilingPct(run *result.Run, r result.SaturateResult) float64 {
	if s, ok := subjectInfo(run, r.Subject); ok && !s.Strict {
		return 0
	}
	if r.CeilingPct > 0 {
		return r.CeilingPct
	}
	if c := ceilingOf(run, r.Subject); c > 0 {
		return 100 * r.IDsPerSec / c
	}
	return 0
}

// eventsMeasured reports whether c holds measured counts.
func eventsMeasured(c result.Events) bool {
	return (c.Source == "hardware" || c.Source == "software") && len(c.PerID) > 0
}

func eventsCell(c result.Events) string {
	if !eventsMeasured(c) {
		return "—"
	}
	keys := make([]string, 0, len(c.PerID))
	for k := range c.PerID {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + units.Count(c.PerID[k])
	}
	s := strings.Join(parts, ", ")
	if c.Source == "software" {
		s += " (software)"
	}
	return s
}
