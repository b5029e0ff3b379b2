package gates

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/report"
)

// WriteFiles writes the run into dir under the stem
// <date>-<host>-<sha>-gates: its JSON, Markdown and HTML page.
func WriteFiles(dir string, r *Result) ([]string, error) {
	return document(r).WriteFiles(dir, &r.Header, r)
}

// WriteTable writes the run's tables for the terminal.
func WriteTable(w io.Writer, r *Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, rows := range [][][]string{append([][]string{header(r)}, rows(r)...), append([][]string{limitHeader}, limitRows(r)...)} {
		if len(rows) == 1 {
			continue
		}
		for _, row := range rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, load := range r.Loads {
		if most, med := r.Noise(load); !math.IsNaN(most) {
			fmt.Fprintf(w, "wall gate's largest loss over same-code pairs %s: %+.1f%% at most, %+.1f%% in the median pair\n", loadText(load), most, med)
		}
	}
	for _, f := range r.Failures {
		if _, err := fmt.Fprintln(w, "goal missed:", f); err != nil {
			return err
		}
	}
	return nil
}

func header(r *Result) []string {
	h := []string{"gate", "load", "false alarms (same code)"}
	for _, p := range r.Levels {
		h = append(h, fmt.Sprintf("caught %g%%", p))
	}
	return h
}

// rows are one per gate and load: false alarms, then each level's
// detections with what the planted slowdown measured.
func rows(r *Result) [][]string {
	var out [][]string
	for _, g := range r.Gates {
		for _, load := range r.Loads {
			c := r.Summary(g, load, 0)
			if c.Of == 0 {
				continue
			}
			row := []string{g, load, fmt.Sprintf("%d/%d", c.Failed, c.Of)}
			for _, p := range r.Levels {
				row = append(row, cell(r.Summary(g, load, p)))
			}
			out = append(out, row)
		}
	}
	return out
}

func cell(c Cell) string {
	if c.Of == 0 {
		return "-"
	}
	s := fmt.Sprintf("%d/%d", c.Failed, c.Of)
	if !math.IsNaN(c.Measured) {
		s += fmt.Sprintf(" (%+.1f%%)", c.Measured)
	}
	return s
}

var limitHeader = []string{"load", "cost over its limit", "runs", "min", "median", "runs below 1.00"}

func limitRows(r *Result) [][]string {
	var out [][]string
	for _, l := range r.Limits {
		out = append(out, []string{l.Load, l.Ratio, fmt.Sprint(l.Runs), fmt.Sprintf("%.3f", l.Min), fmt.Sprintf("%.3f", l.Median), fmt.Sprint(l.Below)})
	}
	return out
}

// document lays the run out as a report page.
func document(r *Result) *report.Document {
	d := &report.Document{}
	items := append(report.Provenance(&r.Header), fmt.Sprintf("**Schema:** gates %d", r.Schema),
		fmt.Sprintf("**Design:** %d same-code pairs and %d trials per planted slowdown, per load", r.Pairs, r.Trials))
	if len(r.Paths) > 0 {
		items = append(items, "**Instruction paths counted:** "+md.Escape(strings.Join(r.Paths, ", ")))
	}
	if len(r.Planted) > 0 {
		var ps []string
		for _, p := range r.Planted {
			ps = append(ps, fmt.Sprintf("%g%%: %.2f", p.Pct, float64(p.Q)/1024))
		}
		items = append(items, "**Wall-time planting, Work steps a call per level asked (sized from a tight loop, quiet):** "+strings.Join(ps, ", "))
	}
	if r.InstrStep > 0 {
		items = append(items, fmt.Sprintf("**Instruction-side step:** %.2f instructions", r.InstrStep))
	}
	for _, load := range r.Loads {
		if most, med := r.Noise(load); !math.IsNaN(most) {
			items = append(items, fmt.Sprintf("**Wall gate's noise %s:** over the same-code pairs, the largest loss any gated ratio read was %+.1f%% at most, %+.1f%% in the median pair (the gate's minimum effect is a 25%% loss, a slowdown of 33%%)", loadText(load), most, med))
		}
	}
	for _, f := range r.Failures {
		items = append(items, "**Goal missed:** "+md.Escape(f))
	}
	if len(r.Failures) == 0 {
		items = append(items, "**Goals:** met: no false alarm, and the instruction gate caught every planted slowdown of 3% or more")
	}
	d.Section(1, report.Title("Regression gates: false alarms and detection", &r.Header)).List(items...)
	d.Section(2, "False alarms and detection").Prose(fmt.Sprintf(gatesText, r.HogThreads, r.HogCPUSeconds)).Table(header(r), md.EscapeRows(rows(r)))
	if len(r.Limits) > 0 {
		d.Section(2, "Generators over their limits").Prose(limitText).Table(limitHeader, md.EscapeRows(limitRows(r)))
	}
	if len(r.Calibration) > 0 {
		var rows [][]string
		for _, c := range r.Calibration {
			rows = append(rows, []string{fmt.Sprintf("%.3g", float64(c.Q)/1024), fmt.Sprintf("%+.1f%%", c.Slowdown)})
		}
		d.Section(2, "Sizing the planted slowdown").Prose(calText).Table([]string{"Work steps a call", "atomicgen/monotonic slower by"}, md.EscapeRows(rows))
	}
	d.Host(r.Host)
	return d
}

const gatesText = `Each gate judged pairs of runs of the same code (a failure is a false alarm) and, for the
first trials, a run with a planted slowdown against the same baseline (a failure is a detection).
**instr** is the instruction-count gate (a path more than 1.5%% dearer fails); **wall** is loadgen
check's wall-time gate (host-normalised ratios, Holm-corrected Mann-Whitney U, a minimum effect of
25%%, pooled repeats while unsure, a confirmation run before failing); **compare** is loadgen compare
-fail-on-regression (every metric at alpha 0.05, uncorrected); **ratio** is lab/compare.Gate at 25%%.
In brackets: what the planted slowdown measured, the median over trials (wall side: atomicgen/monotonic's
IDs per CPU-second at one goroutine, clean over planted; instruction side: the mean change over the
paths). Beside the hog, a child process of %d busy goroutines ran through each pair (%.0f CPU-seconds in all).`

const limitText = `Each gated cost-over-limit ratio (a generator's time per ID over its limit's, per
interleaved repeat; 1.00 is the limit) over every clean run of the pairs: a generator reading below
1.00 beats a loop that does no more than it must.`

const calText = `Before the first pair, atomicgen/monotonic ran in a tight loop on one goroutine, clean and
with each number of planted Work steps a call (five loops each, the least of each kept; the running
maximum down the table). Each level was planted with the steps interpolated from this table. A few
steps cost next to nothing: the CPU runs them beside the next call's clock read, out of order.`
