package gates

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/report"
)

// WriteFiles writes the run into dir under the stem
// <date>-<host>-<sha>-gates: its JSON, Markdown and HTML page.
func WriteFiles(dir string, r *Result) ([]string, error) {
	return document(r).WriteFiles(dir, &r.Header, r)
}

// WriteTable writes the run's report but its host for the terminal.
func WriteTable(w io.Writer, r *Result) error {
	return document(r).WriteText(w, func(title string) bool { return title != "Host" })
}

func header(r *Result) []string {
	h := []string{"gate", "load", "false alarms (same code)"}
	for _, p := range r.Levels {
		h = append(h, fmt.Sprintf("caught %g%% at G=1", p))
	}
	return append(h, "caught the contention plant (ab: at G=GOMAXPROCS)")
}

// rows are one per gate and load: false alarms, then each level's
// detections and the contention plant's, with what the plants measured.
func rows(r *Result) [][]string {
	var out [][]string
	for _, g := range r.Gates {
		for _, load := range r.Loads {
			c := r.Summary(g, load, "", 0)
			if c.Of == 0 {
				continue
			}
			row := []string{g, load, fmt.Sprintf("%d/%d", c.Failed, c.Of)}
			for _, p := range r.Levels {
				row = append(row, cell(r.Summary(g, load, plantSlow, p)))
			}
			out = append(out, append(row, cell(r.Summary(g, load, plantContention, 0))))
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

// notes are the lines under the table: the plants' sizes and the A/B
// gate's noise over its same-code pairs.
func notes(r *Result) []string {
	var out []string
	if len(r.Planted) > 0 {
		var ps []string
		for _, p := range r.Planted {
			ps = append(ps, fmt.Sprintf("%g%%: %d/1024 extra calls, %+.2f%% instructions", p.Pct, p.Q, p.Instr))
		}
		out = append(out, "planted at G=1 (counted under cachegrind): "+strings.Join(ps, "; "))
	}
	if r.InstrStep > 0 {
		out = append(out, fmt.Sprintf("instruction-side step: %.2f instructions", r.InstrStep))
	}
	for _, load := range r.Loads {
		m1, med1 := r.noise(load, true)
		mg, medg := r.noise(load, false)
		if !math.IsNaN(m1) {
			out = append(out, fmt.Sprintf("ab gate's noise %s: over the same-code pairs, the largest change any workload read was %.1f%% at most at G=1 (%.1f%% in the median pair), %.1f%% above (%.1f%%)",
				loadText(load), m1, med1, mg, medg))
		}
		if g1 := r.contentionG1(load); !math.IsNaN(g1) {
			out = append(out, fmt.Sprintf("ab on the contention plant %s: atomicgen/monotonic read %+.1f%% at G=1 in the median trial (the exchange is a locked instruction: dearer alone too), against what the table gives at GOMAXPROCS",
				loadText(load), g1))
		}
	}
	return out
}

// document lays the run out as a report page.
func document(r *Result) *report.Document {
	d := &report.Document{}
	items := append(report.Provenance(&r.Header), fmt.Sprintf("**Schema:** gates %d", r.Schema),
		fmt.Sprintf("**Design:** %d same-code pairs and %d trials per plant, per load", r.Pairs, r.Trials))
	if len(r.Paths) > 0 {
		items = append(items, "**Instruction paths counted:** "+md.Escape(strings.Join(r.Paths, ", ")))
	}
	if a := r.AB; a != nil {
		items = append(items, fmt.Sprintf("**loadgen ab:** %d rounds of %g ms slices (after %g ms unmeasured); minimum effect %.0f%% at G=1, %.0f%% above; alpha %g, Holm over the workloads",
			a.Rounds, a.SliceMS, a.WarmupMS, 100*a.MinEffect, 100*a.MinEffectContended, a.Alpha))
	}
	for _, n := range notes(r) {
		items = append(items, md.Escape(n))
	}
	for _, f := range r.Failures {
		items = append(items, "**Goal missed:** "+md.Escape(f))
	}
	if len(r.Failures) == 0 {
		items = append(items, "**Goals:** met: "+strings.Join(metGoals(r), "; "))
	}
	d.Section(1, report.Title("Regression gates: false alarms and detection", &r.Header)).List(items...)
	d.Section(2, "False alarms and detection").Prose(fmt.Sprintf(gatesText, r.HogThreads, r.HogCPUSeconds)).Table(header(r), md.EscapeRows(rows(r)))
	d.Host(r.Host)
	return d
}

const gatesText = `Each gate judged pairs of the same code (a failure is a false alarm) and, for the first trials,
a planted slowdown (a failure is a detection). **instr** is the instruction-count gate: two counts under
cachegrind, a path more than 1.5%% dearer fails; its planted slowdowns are loop steps after each call,
sized to each path's count, and on the contention plant it counts each subject of the runner, clean and
planted. **ab** is loadgen ab: one run compares base with head, interleaved (a fresh process of each a
round, the two slices of a workload one after the other in a random order), CPU time per ID at G = 1,
GOMAXPROCS and twice that, Wilcoxon's signed-rank test Holm-corrected over the workloads, DIFFERENT only
at or beyond its minimum effect; a same-code pair is base against itself, two processes of one binary.
Its planted slowdowns at G=1 are extra calls (a share of IDs minted twice), sized from instruction counts;
its contention plant stores every ID in a cache line all goroutines write, one instruction a call, and
is caught where a workload at GOMAXPROCS is DIFFERENT and worse. In
brackets: what a plant measured, the median over trials (ab: its estimate for atomicgen/monotonic at G=1,
or at GOMAXPROCS for the contention plant; instr: the mean change over the paths, or the largest over
the subjects for the contention plant). Beside the hog, a child process of %d busy goroutines ran through
each pair (%.0f CPU-seconds in all).`

// metGoals are the goals r was judged on, all met: a goal whose trials
// did not run is not claimed.
func metGoals(r *Result) []string {
	out := []string{"no false alarm"}
	tried := func(g, plant string) bool {
		return slices.ContainsFunc(r.Decisions, func(d decision) bool { return d.Gate == g && d.Plant == plant })
	}
	if tried(gateInstr, plantSlow) {
		out = append(out, "the instruction gate caught every planted slowdown of 3% or more")
	}
	if tried(gateInstr, plantContention) {
		out = append(out, "the instruction gate passed the contention plant")
	}
	if tried(gateAB, plantSlow) {
		out = append(out, "the A/B gate caught 9 in 10 or more of the planted slowdowns of 5% or more")
	}
	if tried(gateAB, plantContention) {
		out = append(out, "the A/B gate caught 9 in 10 or more of the contention plants at GOMAXPROCS")
	}
	return out
}
