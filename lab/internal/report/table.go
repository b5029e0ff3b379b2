package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// WriteTable writes a compact plain-text summary of run's bursts, saturate
// sweep and steady runs for a terminal.
func WriteTable(w io.Writer, run *result.Run) error {
	ew := md.NewWriter(w)
	if run == nil {
		return nil
	}
	ew.Printf("%s · commit %s\n", run.Host, md.OrDash(run.Revision()))
	busy := ""
	if host.Busy(run.Host.Load) {
		busy = " (BUSY HOST: absolute figures are partly the host's)"
	}
	ew.Printf("%s%s\n", run.Host.Load, busy)
	tableBurst(ew, run)
	tableSaturate(ew, run)
	tableOverLimit(ew, run)
	tableSteady(ew, run)
	if u := unfairRuns(run); len(u) > 0 {
		ew.Printf("\n%d %s:\n", len(u), unfairMark)
		for _, f := range u {
			ew.Printf("  %s\n", f)
		}
	}
	if len(run.Failures) > 0 {
		ew.Printf("\n%d FAILURE(S):\n", len(run.Failures))
		for _, f := range run.Failures {
			ew.Printf("  %s\n", f)
		}
	}
	return ew.Err()
}

// newTab starts a table after a blank line; a write error is kept by ew.
func newTab(ew *md.Writer) *tabwriter.Writer {
	ew.Printf("\n")
	return tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
}

// tableBurst is a line per burst: makespan, ticks against the floor,
// rate, latency, lead and check.
func tableBurst(ew *md.Writer, run *result.Run) {
	if len(run.Burst) == 0 {
		return
	}
	tw := newTab(ew)
	fmt.Fprintln(tw, "BURST\tVIA\tG\tIDS\tMAKESPAN\tTICKS/FLOOR\tIDS/S\tP50\tP99\tP99.9\tLEAD\tCHECK")
	for _, b := range run.Burst {
		floor := "-"
		if b.MinTicks > 0 {
			floor = strconv.Itoa(b.MinTicks)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			b.Subject, b.Via, b.Goroutines, b.IDs,
			units.Ns(stats.Median(b.MakespanNs)), units.Count(stats.Median(b.Ticks)), floor,
			units.Rate(b.IDsPerSec), latencyCell(b.Latency, b.Latency.P50),
			latencyCell(b.Latency, b.Latency.P99), latencyCell(b.Latency, b.Latency.P999),
			units.SignedNs(stats.Median(b.LeadNs)), checkShort(b.Check))
	}
	tw.Flush()
}

// tableSaturate is a line per subject: its ceiling and its rate at each
// goroutine count, with its share of the ceiling and a failed check.
func tableSaturate(ew *md.Writer, run *result.Run) {
	if len(run.Saturate) == 0 {
		return
	}
	gs, names, cell := satGrid(run)
	tw := newTab(ew)
	fmt.Fprint(tw, "SATURATE\tCEILING")
	for _, g := range gs {
		fmt.Fprintf(tw, "\tG=%d", g)
	}
	fmt.Fprintln(tw)
	for _, name := range names {
		ceiling := "-"
		if c := ceilingOf(run, name); c > 0 {
			ceiling = units.Rate(c)
		}
		fmt.Fprintf(tw, "%s\t%s", name, ceiling)
		for _, g := range gs {
			r, ok := cell[satKey{name, g}]
			if !ok {
				fmt.Fprint(tw, "\t-")
				continue
			}
			s := units.Rate(r.IDsPerSec)
			if pct := ceilingPct(run, r); pct > 0 {
				s += fmt.Sprintf(" %.0f%%", pct)
			}
			if !r.Check.OK() {
				s += " FAIL"
			}
			fmt.Fprintf(tw, "\t%s", s)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// tableOverLimit is each subject's time per ID over its physical limit
// at each goroutine count, where one is known.
func tableOverLimit(ew *md.Writer, run *result.Run) {
	if len(run.Saturate) == 0 {
		return
	}
	gs, names, cell := satGrid(run)
	rows := limitRows(run, gs, names, cell, func(r float64) string { return units.TrimSig(r, 3) + "x" }, "-")
	if len(rows) == 0 {
		return
	}
	tw := newTab(ew)
	fmt.Fprint(tw, "NS/ID OVER LIMIT\tLIMIT")
	for _, g := range gs {
		fmt.Fprintf(tw, "\tG=%d", g)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// tableSteady is a line per steady run: its target and achieved rates,
// its latency percentiles and check, and a note if a latency was capped.
func tableSteady(ew *md.Writer, run *result.Run) {
	if len(run.Steady) == 0 {
		return
	}
	tw := newTab(ew)
	fmt.Fprintln(tw, "STEADY\tTARGET\tACHIEVED\tP50\tP99\tP99 UNCORRECTED\tP99.9\tP99.99\tMAX\tFAIRNESS\tCHECK")
	anyCapped := false
	for _, s := range run.Steady {
		l := s.Latency
		unc := "-"
		if u := s.Uncorrected; u != nil && u.Count > 0 {
			unc = latencyCell(*u, u.P99)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Subject,
			units.Rate(s.TargetRate), units.Rate(s.Achieved),
			latencyCell(l, l.P50), latencyCell(l, l.P99), unc, latencyCell(l, l.P999),
			latencyCell(l, l.P9999), latencyCell(l, l.Max), fairCell(s.Fairness), checkShort(s.Check))
		anyCapped = anyCapped || l.Capped > 0
	}
	tw.Flush()
	if anyCapped {
		ew.Printf("%s\n", cappedNote)
	}
}
