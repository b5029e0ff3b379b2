package report

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// unfairMark is the flag a report puts on a fairness the lab judged
// unfair (result.Fairness.Unfair), in the tables and the summary.
const unfairMark = "UNFAIR"

// fairCell is a fairness as a table cell: the deviation across the
// goroutines, the least and the most share as multiples of a fair one,
// and the flag: "12% [0.83–1.21×]", "142% [0–2.9×] UNFAIR"; "—" where it
// was not measured.
func fairCell(f *result.Fairness) string {
	if !f.Measured() {
		return "—"
	}
	g := float64(len(f.Shares))
	s := fmt.Sprintf("%s%% [%s–%s×]", units.TrimSig(f.DeviationPct, 2),
		units.TrimSig(f.MinShare*g, 2), units.TrimSig(f.MaxShare*g, 2))
	switch {
	case f.Unfair:
		s += " " + unfairMark
	case f.OverCPUs:
		s += " (G over the CPUs)"
	case f.ShortWindow:
		s += " (under " + units.Ns(float64(f.Window)) + " together)"
	}
	return s
}

// unfairRuns lists where run's fairness was flagged: "atomicgen/monotonic
// (saturate G=4: deviation 142%, least share 0× a fair one)".
func unfairRuns(run *result.Run) []string {
	var out []string
	for _, m := range measurements(run) {
		if f := m.Fairness; f.Measured() && f.Unfair {
			out = append(out, fmt.Sprintf("%s (%s: deviation %s%%, least share %s× a fair one)", m.Subject, m.Where,
				units.TrimSig(f.DeviationPct, 2), units.TrimSig(f.MinShare*float64(len(f.Shares)), 2)))
		}
	}
	return out
}

// unfairLead is the summary's line on fairness: what was flagged, "" when
// nothing was.
func unfairLead(run *result.Run) string {
	u := unfairRuns(run)
	if len(u) == 0 {
		return ""
	}
	return fmt.Sprintf("**%s:** %d run(s) served their goroutines unevenly (the Fairness columns below): %s.",
		unfairMark, len(u), md.Escape(strings.Join(u, "; ")))
}

// writeFairness is the saturate sweep's fairness, a subject per row and a
// goroutine count per column; nothing when no point measured it.
func writeFairness(d *Document, run *result.Run, gs []int, names []string, cell map[satKey]result.SaturateResult) {
	var header = []string{"Subject"}
	var cols []int
	for _, g := range gs {
		if g > 1 {
			cols = append(cols, g)
			header = append(header, fmt.Sprintf("G=%d", g))
		}
	}
	var rows [][]string
	var threshold, floor float64
	for _, name := range names {
		row, any := []string{name}, false
		for _, g := range cols {
			f := cell[satKey{name, g}].Fairness
			row = append(row, fairCell(f))
			if f.Measured() {
				any, threshold, floor = true, f.ThresholdPct, f.MinShareFloor
			}
		}
		if any {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return
	}
	s := d.Section(3, "Fairness")
	s.Table(header, rows)
	s.Charts = fairnessCharts(run)
	s.Text(fmt.Sprintf("%s marks a deviation above %s%% or a goroutine served less than %s× a fair share, "+
		"judged only where every goroutine had a CPU (G up to GOMAXPROCS) and they called together for 10ms or more.",
		unfairMark, units.TrimSig(threshold, 3), units.TrimSig(floor, 2)))
	s.note("fairness")
}

// fairnessCharts plots each subject's deviation across its goroutines
// against the goroutine count, on the saturate charts' panels, with the
// threshold above which the lab flags a run unfair.
func fairnessCharts(run *result.Run) []chartSpec {
	bySubject := saturateBySubject(run, func(r result.SaturateResult) bool { return r.Fairness.Measured() })
	threshold := 0.0
	for _, rs := range bySubject {
		for _, r := range rs {
			threshold = math.Max(threshold, r.Fairness.ThresholdPct)
		}
	}
	return panelCharts(run, "fairness", "deviation of the goroutines' shares against goroutines",
		subjectOrder(run, bySubject), nil,
		func(p chartPanel) *plot.Chart { return fairnessPanel(run, p, bySubject, threshold) })
}

func fairnessPanel(run *result.Run, panel chartPanel, bySubject map[string][]result.SaturateResult, threshold float64) *plot.Chart {
	what := "Fairness: deviation of the goroutines' shares of the IDs (coefficient of variation, saturate)"
	if panel.what != "" {
		what = "Fairness, " + panel.what + ": deviation of the goroutines' shares (saturate)"
	}
	d := newChart(run, what, "goroutines (log₂ scale)", "deviation across goroutines (%)", 10*vg.Inch, 4*vg.Inch)
	d.P.Add(plot.Grid())
	top := threshold
	if threshold > 0 {
		h := plot.RefLine(threshold, 0)
		d.P.Add(h)
		d.Add(fmt.Sprintf("flagged unfair above %s%%", units.TrimSig(threshold, 3)), h)
	}
	st := styles(run)
	for _, name := range panel.names {
		rs := bySubject[name]
		xys := make(plotter.XYs, len(rs))
		for i, r := range rs {
			xys[i] = plotter.XY{X: float64(r.Goroutines), Y: r.Fairness.DeviationPct}
			top = math.Max(top, r.Fairness.DeviationPct)
		}
		d.Line(legendLabel(run, name), st[name], xys)
	}
	d.P.Y.Min, d.P.Y.Max = 0, math.Max(top*1.1, 1)
	goroutineAxis(run, &d.P.X, panel.names, bySubject)
	return d
}

// worstFairness is a generator's least fair run among those judged (G up
// to GOMAXPROCS), for the summary: "92% UNFAIR (saturate G=4)", "8.2%
// (burst via NextID)"; "not judged" where every run had more goroutines
// than CPUs, "—" where none measured it.
func worstFairness(run *result.Run, subject string) string {
	var worst *namedCheck
	measured := false
	for _, m := range checksOf(run, subject) {
		if !m.Fairness.Measured() {
			continue
		}
		measured = true
		if m.Fairness.Judged() && (worst == nil || m.Fairness.DeviationPct > worst.Fairness.DeviationPct) {
			worst = &m
		}
	}
	switch {
	case worst != nil:
		s := units.TrimSig(worst.Fairness.DeviationPct, 2) + "%"
		if worst.Fairness.Unfair {
			s += " " + unfairMark
		}
		return s + " (" + worst.Where + ")"
	case measured:
		return "not judged (G over the CPUs, or too short together)"
	}
	return "—"
}
