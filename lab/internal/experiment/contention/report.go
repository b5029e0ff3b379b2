package contention

import (
	"fmt"
	"io"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/units"
)

// writeFiles writes the run into dir under the stem
// <date>-<host>-<sha>-contention: its JSON, Markdown and HTML page.
func writeFiles(dir string, r *runResult) ([]string, error) {
	return document(r).WriteFiles(dir, &r.Header, r)
}

// writeTable writes the run's report but its host for a terminal.
func writeTable(w io.Writer, r *runResult) error {
	return document(r).WriteText(w, func(title string) bool { return title != "Host" })
}

var oversubHeader = []string{"subject", "condition", "G", "IDs/s", "vs G=P", "p50", "p99", "p99.9", "max", "share min", "share max", "CV", "starved", "check"}

func oversubRows(r *runResult) [][]string {
	fit := map[string]float64{}
	for _, p := range r.Oversub {
		if p.Condition == condFit {
			fit[p.Subject] = p.IDsPerSec
		}
	}
	var rows [][]string
	for _, p := range r.Oversub {
		vs := "1"
		if f := fit[p.Subject]; f > 0 && p.Condition != condFit {
			vs = fmt.Sprintf("×%.2f", p.IDsPerSec/f)
		}
		l := p.Latency
		rows = append(rows, []string{p.Subject, strings.Replace(p.Condition, "k", fmt.Sprint(r.Factor), 1), fmt.Sprint(p.Goroutines),
			units.Rate(p.IDsPerSec), vs, units.Ns(float64(l.P50)), units.Ns(float64(l.P99)), units.Ns(float64(l.P999)), units.Ns(float64(l.Max)),
			fmt.Sprintf("%.2f (%.2f)", p.Shares.Min, p.WorstMin), fmt.Sprintf("%.2f", p.Shares.Max), fmt.Sprintf("%.2f", p.Shares.CV),
			fmt.Sprint(p.Shares.Starved), p.Check.String()})
	}
	return rows
}

var placementHeader = []string{"placement", "CPUs", "shared ns/op", "adjacent ns/op", "padded ns/op", "adjacent/padded", "cache-misses/op (adjacent)", "skipped"}

func placementRows(r *runResult) [][]string {
	var rows [][]string
	for i := 0; i+len(layouts) <= len(r.Placement); i += len(layouts) {
		sh, adj, pad := r.Placement[i], r.Placement[i+1], r.Placement[i+2]
		if sh.Skipped != "" {
			rows = append(rows, []string{sh.Placement, "-", "-", "-", "-", "-", "-", sh.Skipped})
			continue
		}
		ratio := "-"
		if pad.NsPerOp > 0 {
			ratio = fmt.Sprintf("×%.2f", adj.NsPerOp/pad.NsPerOp)
		}
		miss := "unavailable"
		if v, ok := adj.Events.PerID["cache-misses"]; ok {
			miss = fmt.Sprintf("%.3f", v)
		}
		cpus := "scheduler's"
		if sh.CPUs != nil {
			cpus = fmt.Sprint(sh.CPUs)
		}
		rows = append(rows, []string{sh.Placement, cpus, units.Ns(sh.NsPerOp), units.Ns(adj.NsPerOp), units.Ns(pad.NsPerOp), ratio, miss, ""})
	}
	return rows
}

// document lays the run out as a report page.
func document(r *runResult) *report.Document {
	d := &report.Document{}
	items := append(report.Provenance(&r.Header), fmt.Sprintf("**Schema:** contention %d", r.Schema),
		"**Hardware cache-to-cache events:** "+md.Escape(r.PMU))
	for _, w := range r.Warnings {
		items = append(items, "**Warning:** "+md.Escape(w))
	}
	d.Section(1, report.Title("Contention: oversubscription, padding and placement", &r.Header)).List(items...)
	if len(r.Oversub) > 0 {
		d.Section(2, "Oversubscription").Prose(fmt.Sprintf(oversubText, r.Factor, r.Hog.Threads, r.Hog.For, r.Hog.CPUSeconds)).
			Table(oversubHeader, md.EscapeRows(oversubRows(r)))
	}
	if len(r.Placement) > 0 {
		d.Section(2, "Padding and placement").Prose(placementText).Table(placementHeader, md.EscapeRows(placementRows(r)))
	}
	d.Host(r.Host)
	return d
}

const oversubText = `Every generator in a closed loop at three conditions: G=P (as many goroutines as Ps),
G=kP (k=%d: Go's scheduler preempts goroutines mid-call) on an otherwise idle host, and G=kP beside
the hog, a child process of %d busy goroutines (bounded to %v, killed at the end of the phase; it took
%.1f CPU-seconds), so that the operating system deschedules the lab's threads too: a lock holder
descheduled stalls every waiter; a CAS loser descheduled only itself.

"vs G=P" is the condition's IDs/s over G=P's. Latency is sampled (one call in 64, all repeats). A
share is a goroutine's IDs over the fair share (total/G): 1 is fair, 0 starved; "share min" is over
all repeats, in brackets the least of any one repeat; CV is the counts' standard deviation over their
mean. The check, the suite's, of the IDs kept: every one unique, increasing per goroutine or per shard
where the generator promises it, and within a strict generator's per-tick ceiling.`

const placementText = `G goroutines each at one of three layouts: **shared** (one atomicgen generator,
Monotonic: true sharing of its word), **adjacent** (a word each, side by side in one 64-byte line,
moved by the generator's hot path, a clock read and one CAS: false sharing), **padded** (the same
words 128 bytes apart, as the generators' engine.Cell lays its word out). Each layout runs unplaced
(the scheduler's choice) and pinned (runtime.LockOSThread and sched_setaffinity) on one CPU, on SMT
siblings, on separate cores of one package and across packages, where the host has them; a
placement it lacks says so. ns/op is wall time x G over operations (the median of the repeats).
"adjacent/padded" is what padding the word is worth at that distance.`
