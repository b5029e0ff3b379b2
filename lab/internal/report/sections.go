package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// newDocument lays run out as the reports show it: where and how it ran,
// the summary (the answer: each generator against its ceiling, its limit
// and the fastest peer, and every check), the host with its load and
// clocks, the subjects, one table per workload with a note on how to
// read it and the charts drawn for it, and the failures.
func newDocument(run *result.Run) *Document {
	d := &Document{}
	if run == nil {
		d.Section(1, "snowlab lab run").Text("No run.")
		return d
	}
	writeHeader(d, run)
	writeSummary(d, run)
	d.Host(run.Host)
	writeSubjects(d, run)
	writeBurst(d, run)
	writeSaturate(d, run)
	writeSteady(d, run)
	writeFailures(d, run)
	return d
}

func writeHeader(d *Document, run *result.Run) {
	h := &result.Header{Started: run.Started, Elapsed: run.Elapsed, Command: run.Command, Commit: run.Commit, Dirty: run.Dirty, Host: run.Host}
	d.Section(1, Title("snowlab lab run", h)).List(append(Provenance(h), fmt.Sprintf("**Schema:** %d", run.Schema))...)
}

// topologyRows are the host's topology and its CPU warning, where the
// run recorded them (none in files of older labs, so their pages read as
// before).
func topologyRows(h result.Host) [][]string {
	var rows [][]string
	if h.Topology != nil {
		rows = append(rows, []string{"Topology", h.Topology.String()})
	}
	if h.CPUWarning != "" {
		rows = append(rows, []string{"CPU warning", md.Escape(h.CPUWarning)})
	}
	return rows
}

// Host adds the "Host" section of a suite run's report for h, with its
// load and clock audit.
func (d *Document) Host(h result.Host) {
	s := d.Section(2, "Host")
	hyper := h.HypervisorName()
	if hyper == "" {
		hyper = "none detected (bare metal)"
	}
	osArch := strings.Trim(h.OS+"/"+h.Arch, "/")
	s.Table([]string{"Property", "Value"}, append([][]string{
		{"Hostname", md.OrDash(h.Hostname)},
		{"CPU", md.OrDash(h.CPU)},
		{"Cores", fmt.Sprintf("%d physical, %d logical", h.PhysicalCores, h.LogicalCores)},
		{"Caches", fmt.Sprintf("line %s · L1d %s · L2 %s · L3 %s",
			units.Bytes(int64(h.CacheLine)), units.Bytes(int64(h.L1D)), units.Bytes(int64(h.L2)), units.Bytes(int64(h.L3)))},
		{"Hypervisor", hyper},
		{"GOMAXPROCS", strconv.Itoa(h.GOMAXPROCS)},
		{"Go", strings.TrimSpace(h.GoVersion + " " + osArch)},
		{"Kernel", md.OrDash(h.Kernel)},
		{"Clocksource", md.OrDash(h.Clocksource)},
		{"PMU", md.OrDash(h.PMU)},
	}, append(topologyRows(h), loadRows(h.Load)...)...))
	if len(h.ClockAudit) == 0 {
		return
	}
	s = d.Section(3, "Clock audit")
	var rows [][]string
	for _, c := range h.ClockAudit {
		rows = append(rows, []string{c.Name, units.Ns(c.NsPerRead),
			units.Ns(float64(c.ResolutionNs)), units.Ns(float64(c.KernelResolution))})
	}
	s.Table([]string{"Source", "Cost per read", "Observed resolution", "Kernel resolution"}, rows)
	s.note("clock-audit")
}

// loadRows are the host table's rows on the load the host was under.
func loadRows(l *result.Load) [][]string {
	switch {
	case l == nil:
		return [][]string{{"Load", "not recorded (not measured by the lab or experiment that wrote this file)"}}
	case !l.Recorded():
		return [][]string{{"Load", l.Unknown}}
	}
	cpu := fmt.Sprintf("this run %s · other processes %s · steal %s, of %d CPU%s", result.Percent(l.Own),
		result.Percent(l.Other), result.Percent(l.Steal), l.CPUs, plural(l.CPUs))
	if l.Seconds > 0 {
		cpu += " over " + units.Ns(l.Seconds*1e9)
	}
	if host.Busy(l) {
		cpu += " (busy: others took more than " + result.Percent(host.BusyShare) + ")"
	}
	avg := func(a result.LoadAvg) string { return fmt.Sprintf("%.2f, %.2f, %.2f", a.One, a.Five, a.Fifteen) }
	return [][]string{
		{"CPU time during the run", cpu},
		{"Load average (1, 5, 15 min)", fmt.Sprintf("%s at start; %s at end, this run's threads counted", avg(l.Start), avg(l.End))},
	}
}

func writeSubjects(d *Document, run *result.Run) {
	if len(run.Subjects) == 0 {
		return
	}
	s := d.Section(2, "Subjects")
	var rows [][]string
	for _, s := range run.Subjects {
		ceiling := "—"
		if s.CeilingIDs > 0 {
			ceiling = units.Rate(s.CeilingIDs)
		}
		rows = append(rows, []string{s.Name, md.OrDash(s.Library), yesNo(s.Peer), yesNo(s.Strict),
			strconv.Itoa(s.Nodes), ceiling, md.OrDash(s.Note)})
	}
	s.Table([]string{"Subject", "Library", "Peer", "Strict", "Nodes", "Ceiling", "Note"}, rows)
}

func writeBurst(d *Document, run *result.Run) {
	if len(run.Burst) == 0 {
		return
	}
	s := d.Section(2, "Burst")
	// Events: a column only when some result has real counts; the
	// reasons they are missing are said once, below the table.
	withCounters := false
	var missing []string
	for _, b := range run.Burst {
		if eventsMeasured(b.Events) {
			withCounters = true
		} else if src := md.OrDash(b.Events.Source); !slices.Contains(missing, src) {
			missing = append(missing, src)
		}
	}
	// Two tables, so that neither is wider than a page: what each burst
	// did, then where its time went.
	header := []string{"Subject", "Via", "G", "IDs", "Makespan ms median [min–max]", "Ticks median / floor",
		"IDs/s", "p50", "p99", "p99.9", "Lead median", "Check"}
	where := []string{"Subject", "Via", "CAS retries/ID", "Tick waits/ID", "Mutex wait/ID", "Fairness"}
	if withCounters {
		where = append(where, "Counters/ID")
	}
	var rows, whereRows [][]string
	for _, b := range run.Burst {
		lo, med, hi := stats.Spread(b.MakespanNs)
		floor := "—"
		if b.MinTicks > 0 {
			floor = strconv.Itoa(b.MinTicks)
		}
		rows = append(rows, []string{
			b.Subject, b.Via, strconv.Itoa(b.Goroutines), units.Thousands(b.IDs),
			fmt.Sprintf("%s [%s–%s]", units.Ms(med), units.Ms(lo), units.Ms(hi)),
			units.Count(stats.Median(b.Ticks)) + " / " + floor,
			units.Rate(b.IDsPerSec),
			latencyCell(b.Latency, b.Latency.P50), latencyCell(b.Latency, b.Latency.P99), latencyCell(b.Latency, b.Latency.P999),
			units.SignedNs(stats.Median(b.LeadNs)),
			b.Check.String(),
		})
		row := []string{b.Subject, b.Via,
			units.Count(b.Contention.CASRetriesPerID),
			units.Count(b.Contention.TickWaitsPerID),
			units.Ns(b.Contention.MutexWaitNsPerID),
			fairCell(b.Fairness),
		}
		if withCounters {
			row = append(row, eventsCell(b.Events))
		}
		whereRows = append(whereRows, row)
	}
	s.Table(header, rows)
	s.Table(where, whereRows)
	s.Charts = latencyCharts(run)
	s.Chart("makespan.svg", "burst makespans", makespanChart(run))
	if slices.ContainsFunc(run.Burst, func(b result.BurstResult) bool { return b.Latency.Capped > 0 }) {
		s.Text(cappedNote)
	}
	if len(missing) > 0 {
		what := "Hardware counters"
		if withCounters {
			what = "Hardware counters for the rows marked —"
		}
		s.Text(fmt.Sprintf("%s: %s.", what, strings.Join(missing, "; ")))
	}
	s.note("burst")
}

func writeSaturate(d *Document, run *result.Run) {
	if len(run.Saturate) == 0 {
		return
	}
	s := d.Section(2, "Saturate")
	s.Charts = saturateCharts(run)
	gs, names, cell := satGrid(run)
	header := []string{"Subject", "Ceiling (M/s)"}
	for _, g := range gs {
		header = append(header, fmt.Sprintf("G=%d (M/s)", g))
	}
	var rows [][]string
	anyFail := false
	for _, name := range names {
		ceiling := "—"
		if c := ceilingOf(run, name); c > 0 {
			ceiling = units.TrimSig(c/1e6, 4)
			if info, _ := subjectInfo(run, name); !info.Strict {
				ceiling += " (not strict)"
			}
		}
		row := []string{name, ceiling}
		for _, g := range gs {
			r, ok := cell[satKey{name, g}]
			if !ok {
				row = append(row, "—")
				continue
			}
			v := units.SigFig(r.IDsPerSec/1e6, 3)
			if pct := ceilingPct(run, r); pct > 0 {
				v += fmt.Sprintf(" (%.1f%%)", pct)
			}
			if !r.Check.OK() {
				v += " ✗"
				anyFail = true
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	s.Table(header, rows)
	if anyFail {
		s.Text("✗ marks a failed check; see [Failures](#failures).")
	}
	writeLimits(d, run, gs, names, cell)
	writeFairness(d, run, gs, names, cell)
	s.note("saturate")
}

// writeLimits writes each subject's cost per ID over its physical limit's
// in the same run, at each goroutine count (a dash where either side
// lacks the count; no row for a subject without a measured limit), and a
// finding where a subject beat its limit in every repeat at some G:
// every per-repeat ratio (the limit's IDs/s over the subject's, repeats
// paired in the order they ran) under 1. Every repeat, not the median, so
// that the finding is beyond the run's own noise: with 6 repeats a limit
// that holds reads below 1× in all of them by chance with probability at
// most 2^-6 per cell when the two sides tie.
func writeLimits(d *Document, run *result.Run, gs []int, names []string, cell map[satKey]result.SaturateResult) {
	var rows [][]string
	var findings []string
	for _, name := range names {
		info, _ := subjectInfo(run, name)
		if info.Limit == "" || info.Physical {
			continue
		}
		row := []string{name, info.Limit}
		any := false
		for _, g := range gs {
			r, ok1 := cell[satKey{name, g}]
			l, ok2 := cell[satKey{info.Limit, g}]
			if f := belowLimit(r, l); ok1 && ok2 && f != "" {
				findings = append(findings, fmt.Sprintf("**Finding:** %s reads below %s at G=%d in every one of its %d repeats "+
					"(at most %s×): that limit does more than this path must, so it is no limit for it.", name, info.Limit, g, len(r.Samples), f))
			}
			if !ok1 || !ok2 || !(r.IDsPerSec > 0) || !(l.IDsPerSec > 0) {
				row = append(row, "—")
				continue
			}
			row = append(row, units.TrimSig(l.IDsPerSec/r.IDsPerSec, 3)+"×")
			any = true
		}
		if any {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return
	}
	header := []string{"Subject", "Limit"}
	for _, g := range gs {
		header = append(header, fmt.Sprintf("G=%d", g))
	}
	s := d.Section(3, "Cost over the physical limit").Table(header, rows)
	for _, f := range findings {
		s.Text(f)
	}
	s.note("limits")
}

// belowLimit is the largest per-repeat ratio of limit l over subject r
// when every one is under 1, "" otherwise (or with fewer than 2 repeats,
// or unpaired ones).
func belowLimit(r, l result.SaturateResult) string {
	if len(r.Samples) < 2 || len(r.Samples) != len(l.Samples) {
		return ""
	}
	most := 0.0
	for i := range r.Samples {
		if !(r.Samples[i] > 0) {
			return ""
		}
		most = max(most, l.Samples[i]/r.Samples[i])
	}
	if !(most < 1) { // NaN too
		return ""
	}
	return units.TrimSig(most, 3)
}

func writeSteady(d *Document, run *result.Run) {
	if len(run.Steady) == 0 {
		return
	}
	s := d.Section(2, "Steady")
	var rows [][]string
	anyCapped := false
	for _, s := range run.Steady {
		l := s.Latency
		rows = append(rows, []string{s.Subject, units.Rate(s.TargetRate), units.Rate(s.Achieved),
			units.Ns(float64(s.Duration)),
			latencyCell(l, l.P50), latencyCell(l, l.P99), latencyCell(l, l.P999), latencyCell(l, l.P9999),
			latencyCell(l, l.Max), s.Check.String()})
		anyCapped = anyCapped || l.Capped > 0
	}
	s.Table([]string{"Subject", "Target", "Achieved", "Duration", "p50", "p99", "p99.9", "p99.99", "Max", "Check"}, rows)
	if anyCapped {
		s.Text(cappedNote)
	}
	s.note("steady")
	writeOmission(d, run)
}

func writeFailures(d *Document, run *result.Run) {
	if len(run.Failures) == 0 {
		return
	}
	s := d.Section(2, "Failures")
	items := make([]string, len(run.Failures))
	for i, f := range run.Failures {
		items[i] = md.Escape(f)
	}
	s.List(items...)
	s.Text("A run with failures exits non-zero: the generator named issued IDs that broke what it promises.")
}

// cappedNote explains a "≥" latency.
const cappedNote = "A latency marked ≥ reached the top of the recorder's range (10s): some calls took at least that long, " +
	"and how much longer is not known."

// latencyCell formats v, one of l's percentiles, marking it "≥" when it
// reached the recorder's cap and so is only a lower bound.
func latencyCell(l result.Latency, v int64) string {
	if l.IsCapped(v) {
		return "≥" + units.Ns(float64(l.CapNs))
	}
	return units.Ns(float64(v))
}

// checkShort is the check's description without the first error, for
// the summary.
func checkShort(c result.Check) string {
	s := c.String()
	if i := strings.Index(s, " (first: "); i >= 0 {
		s = s[:i]
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
