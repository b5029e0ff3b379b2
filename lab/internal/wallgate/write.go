package wallgate

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/snowlab/snowlab/lab/internal/md"
)

// Write prints the report: how it decides, every ratio's decision, the
// correctness findings and the overall result.
func (r Report) Write(w io.Writer) error {
	ew := md.NewWriter(w)
	ew.Printf("wall-time gate: host-normalised ratios only; U test per ratio, Holm-corrected over %d (alpha %g); minimum effect %.0f%% fewer IDs for the same work\n",
		len(r.Rows), r.Alpha, 100*r.MinEffect)
	ew.Printf("base: commit %s; new: commit %s\n", md.OrDash(r.BaseCommit), md.OrDash(r.NewCommit))
	if r.HostNote != "" {
		ew.Printf("note: hosts differ (%s); the ratios are meant to hold across hosts\n", r.HostNote)
	}
	if r.LoadNote != "" {
		ew.Printf("note: %s\n", r.LoadNote)
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nratio\tbase\tnew\tloss (interval)\tp Holm\tdecision\n")
	unknown := 0
	for _, row := range r.Rows {
		verdict := string(row.Decision)
		switch {
		case row.Worse:
			verdict += ": worse, FAIL"
		case row.Decision == Different:
			verdict += ": better"
		case row.Decision == Unknown:
			unknown++
		}
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%s\t%s\t%s\n", row.Name, row.Base, row.New, lossText(row), pText(row.PHolm), verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ew.Printf("loss: fewer IDs for the same work (Hodges-Lehmann estimate over the per-repeat ratios, %.0f%% interval); negative is more\n", 100*(1-r.Alpha))
	if unknown > 0 {
		ew.Printf("UNKNOWN: %d ratio(s) neither shown different nor within ±%.0f%%: more repeats on both sides would decide them; they do not fail the gate\n",
			unknown, 100*r.MinEffect)
	}
	if len(r.CorrectnessFailures) > 0 {
		ew.Printf("correctness: FAIL (%d)\n", len(r.CorrectnessFailures))
		for _, f := range r.CorrectnessFailures {
			ew.Printf("  %s\n", f)
		}
	}
	if err := r.Err(); err != nil {
		ew.Printf("gate: FAIL (%v)\n", err)
	} else {
		ew.Printf("gate: PASS\n")
	}
	return ew.Err()
}

func lossText(row Row) string {
	if math.IsNaN(row.Loss) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%% (%s, %s)", 100*row.Loss, pct(row.LossLo), pct(row.LossHi))
}

func pct(v float64) string {
	if math.IsInf(v, 0) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}

func pText(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%.3g", p)
}
