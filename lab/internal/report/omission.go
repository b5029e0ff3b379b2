package report

import (
	"fmt"

	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// omissionGap names the coordinated-omission gap of a steady run at p99:
// "p99 2.1ms corrected vs 48µs uncorrected: coordinated omission ×44";
// "" where the run kept no uncorrected latency (older labs).
func omissionGap(s result.SteadyResult) string {
	u := s.Uncorrected
	if u == nil || u.Count == 0 {
		return ""
	}
	c := s.Latency
	gap := "—"
	if u.P99 > 0 {
		gap = "×" + units.TrimSig(float64(c.P99)/float64(u.P99), 2)
	}
	return fmt.Sprintf("p99 %s corrected vs %s uncorrected: coordinated omission %s",
		latencyCell(c, c.P99), latencyCell(*u, u.P99), gap)
}

// writeOmission is the steady runs' latency measured both ways, side by
// side, the gap named, and how evenly the workers were served: nothing
// when no run kept its uncorrected latency.
func writeOmission(d *Document, run *result.Run) {
	var rows [][]string
	for _, s := range run.Steady {
		u := s.Uncorrected
		if u == nil || u.Count == 0 {
			continue
		}
		c := s.Latency
		pair := func(cv, uv int64) string { return latencyCell(c, cv) + " / " + latencyCell(*u, uv) }
		rows = append(rows, []string{s.Subject, pair(c.P50, u.P50), pair(c.P99, u.P99), pair(c.P999, u.P999),
			pair(c.Max, u.Max), omissionGap(s), fairCell(s.Fairness)})
	}
	if len(rows) == 0 {
		return
	}
	s := d.Section(3, "Corrected and uncorrected latency")
	s.Table([]string{"Subject", "p50 corrected / uncorrected", "p99 corrected / uncorrected",
		"p99.9 corrected / uncorrected", "Max corrected / uncorrected", "Gap", "Fairness of the workers"}, rows)
	s.note("omission")
}
