package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/host"
	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/redact"
	"github.com/snowlab/snowlab/lab/result"
)

// WriteMarkdown writes a Markdown summary of run: where and how it ran,
// the host and its clocks, the subjects, one table per workload with a
// note on how to read it, and the failures.
func WriteMarkdown(w io.Writer, run *result.Run) error {
	ew := md.NewWriter(w)
	if run == nil {
		ew.Printf("# snowlab lab run\n\nNo run.\n")
		return ew.Err()
	}
	writeHeader(ew, run)
	writeHost(ew, run.Host)
	writeSubjects(ew, run)
	writeBurst(ew, run)
	writeSaturate(ew, run)
	writeSteady(ew, run)
	writeFailures(ew, run)
	return ew.Err()
}

func writeHeader(e *md.Writer, run *result.Run) {
	date := "unknown"
	if !run.Started.IsZero() {
		date = run.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	title := "snowlab lab run"
	if !run.Started.IsZero() {
		title += " " + run.Started.UTC().Format("2006-01-02")
	}
	if run.Host.Hostname != "" {
		title += " on " + run.Host.Hostname
	}
	e.Printf("# %s\n\n", title)
	elapsed := ""
	if run.Elapsed > 0 {
		d := run.Elapsed
		if d >= time.Minute {
			d = d.Round(time.Second)
		} else {
			d = d.Round(time.Millisecond)
		}
		elapsed = fmt.Sprintf(" (took %s)", d)
	}
	e.Printf("- **Date:** %s%s\n", date, elapsed)
	e.Printf("- **Commit:** %s\n", md.Code(md.OrDash(run.Revision())))
	e.Printf("- **Command:** %s\n", md.Code(md.OrDash(md.ShellJoin(redact.Args(run.Command)))))
	e.Printf("- **Schema:** %d\n", run.Schema)
	if len(run.Failures) > 0 {
		e.Printf("- **Result:** %d correctness check(s) FAILED, see [Failures](#failures)\n", len(run.Failures))
	} else {
		e.Printf("- **Result:** every correctness check passed\n")
	}
	e.Printf("\n")
}

// WriteHost writes the "## Host" section of a report, with the clock
// audit, for h: what a run's report says about where it ran, for an
// experiment's report (lab/btree) as for a suite run's.
func WriteHost(w io.Writer, h host.Fingerprint) error {
	e := md.NewWriter(w)
	writeHost(e, h)
	return e.Err()
}

func writeHost(e *md.Writer, h host.Fingerprint) {
	e.Printf("## Host\n\n")
	hyper := h.Hypervisor
	if hyper == "" {
		hyper = "none detected (bare metal)"
	}
	osArch := strings.Trim(h.OS+"/"+h.Arch, "/")
	e.Table([]string{"Property", "Value"}, [][]string{
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
	})
	if len(h.ClockAudit) == 0 {
		return
	}
	e.Printf("### Clock audit\n\n")
	var rows [][]string
	for _, c := range h.ClockAudit {
		rows = append(rows, []string{c.Name, units.Ns(c.NsPerRead),
			units.Ns(float64(c.ResolutionNs)), units.Ns(float64(c.KernelResolution))})
	}
	e.Table([]string{"Source", "Cost per read", "Observed resolution", "Kernel resolution"}, rows)
	e.Text("**How to read this.** *Cost per read* is the mean time of one read in a tight loop: " +
		"every ID a generator issues pays it at least once. *Observed resolution* is the smallest " +
		"non-zero step seen between consecutive reads; when it is much coarser than the kernel's " +
		"stated resolution, the clock (or the virtualised TSC behind it) moves in steps, and a " +
		"generator reading it can see the same tick longer than the tick lasts. A clocksource other " +
		"than `tsc` (for example `hpet`, `xen`, `acpi_pm`) usually means a read costs a system call.\n\n")
}

func writeSubjects(e *md.Writer, run *result.Run) {
	if len(run.Subjects) == 0 {
		return
	}
	e.Printf("## Subjects\n\n")
	var rows [][]string
	for _, s := range run.Subjects {
		ceiling := "—"
		if s.CeilingIDs > 0 {
			ceiling = units.Rate(s.CeilingIDs)
		}
		rows = append(rows, []string{s.Name, md.OrDash(s.Library), yesNo(s.Peer), yesNo(s.Strict),
			strconv.Itoa(s.Nodes), ceiling, md.OrDash(s.Note)})
	}
	e.Table([]string{"Subject", "Library", "Peer", "Strict", "Nodes", "Ceiling", "Note"}, rows)
}

func writeBurst(e *md.Writer, run *result.Run) {
	if len(run.Burst) == 0 {
		return
	}
	e.Printf("## Burst\n\n")
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
	header := []string{"Subject", "Via", "G", "IDs", "Makespan ms median [min–max]", "Ticks median / floor",
		"IDs/s", "p50", "p99", "p99.9", "Lead median", "CAS retries/ID", "Tick waits/ID", "Mutex wait/ID"}
	if withCounters {
		header = append(header, "Counters/ID")
	}
	header = append(header, "Check")
	var rows [][]string
	for _, b := range run.Burst {
		lo, med, hi := stats.Spread(b.MakespanNs)
		floor := "—"
		if b.FloorTicks > 0 {
			floor = strconv.Itoa(b.FloorTicks)
		}
		row := []string{
			b.Subject, b.Via, strconv.Itoa(b.Goroutines), units.Thousands(b.IDs),
			fmt.Sprintf("%s [%s–%s]", units.Ms(med), units.Ms(lo), units.Ms(hi)),
			units.Count(stats.Median(b.Ticks)) + " / " + floor,
			units.Rate(b.IDsPerSec),
			latencyCell(b.Latency, b.Latency.P50), latencyCell(b.Latency, b.Latency.P99), latencyCell(b.Latency, b.Latency.P999),
			units.SignedNs(stats.Median(b.LeadNs)),
			units.Count(b.Contention.CASRetriesPerID),
			units.Count(b.Contention.TickWaitsPerID),
			units.Ns(b.Contention.MutexWaitNsPerID),
		}
		if withCounters {
			row = append(row, eventsCell(b.Events))
		}
		row = append(row, b.Check.String())
		rows = append(rows, row)
	}
	e.Table(header, rows)
	if slices.ContainsFunc(run.Burst, func(b result.BurstResult) bool { return b.Latency.Capped > 0 }) {
		e.Text(cappedNote + "\n\n")
	}
	if len(missing) > 0 {
		what := "Hardware counters"
		if withCounters {
			what = "Hardware counters for the rows marked —"
		}
		e.Printf("%s: %s.\n\n", what, strings.Join(missing, "; "))
	}
	e.Text("**How to read this.** G goroutines are released together and ask for IDs in all " +
		"(one call per ID via `NextID`, one batch per goroutine via `NextIDs`), repeated; " +
		"*makespan* is the time from the release to the last ID, and IDs/s is IDs over its median. " +
		"For a strict generator the IDs cannot span fewer ticks than the *floor* (IDs over the " +
		"per-tick sequence space of all its nodes), so the makespan cannot be shorter than floor − 1 " +
		"ticks (the first tick may be partly gone at the release): ticks at the floor mean the " +
		"generator was as fast as the layout allows, and ticks well above it mean the generator, " +
		"not the layout, was the limit. p50/p99/p99.9 are per call (for `NextIDs`, per batch). " +
		"*Lead* is the newest embedded timestamp minus the wall clock at the end: positive means " +
		"IDs ran ahead of time (a monotonic generator borrowing from the future), and a strict one " +
		"should stay at or below zero. CAS retries, tick waits and mutex wait per ID say where the " +
		"time went: retries are contention on one word, tick waits are the sequence running out " +
		"within a tick, mutex wait is goroutines blocked on a lock. Check is OK when every ID was " +
		"unique, in the promised order and within the ceiling.\n\n")
}

func writeSaturate(e *md.Writer, run *result.Run) {
	if len(run.Saturate) == 0 {
		return
	}
	e.Printf("## Saturate\n\n")
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
			if s, _ := subjectInfo(run, name); !s.Strict {
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
			s := units.SigFig(r.IDsPerSec/1e6, 3)
			if pct := ceilingPct(run, r); pct > 0 {
				s += fmt.Sprintf(" (%.1f%%)", pct)
			}
			if !r.Check.OK() {
				s += " ✗"
				anyFail = true
			}
			row = append(row, s)
		}
		rows = append(rows, row)
	}
	e.Table(header, rows)
	if anyFail {
		e.Printf("✗ marks a failed check; see [Failures](#failures).\n\n")
	}
	writeLimits(e, run, gs, names, cell)
	e.Text("**How to read this.** Each cell is the median IDs/s, in millions per second, of G " +
		"goroutines calling the generator in a closed loop for a fixed time; in brackets, that as " +
		"a percentage of the subject's strict ceiling (per-tick sequence space × nodes per tick " +
		"length). A strict generator cannot pass 100%, so a cell near 100% is as fast as the layout " +
		"allows and adding goroutines can only add contention; a subject without a ceiling is " +
		"limited only by its own code and the cores. One marked *not strict* may pass its layout's " +
		"ceiling by running ahead of the clock (see the lead in the burst table), so it gets no " +
		"percentage. Compare a row across columns for scaling and " +
		"a column across rows for the cost of each design at that concurrency.\n\n")
}

// reportLimits writes each subject's cost per ID over its physical limit's
// in the same run, at each goroutine count.
func writeLimits(e *md.Writer, run *result.Run, gs []int, names []string, cell map[satKey]result.SaturateResult) {
	rows := limitRows(run, gs, names, cell, func(r float64) string { return units.TrimSig(r, 3) + "×" }, "—")
	if len(rows) == 0 {
		return
	}
	header := []string{"Subject", "Limit"}
	for _, g := range gs {
		header = append(header, fmt.Sprintf("G=%d", g))
	}
	e.Printf("### Cost over the physical limit\n\n")
	e.Table(header, rows)
	e.Text("**How to read this.** Each cell is the subject's time per ID over its limit's at the same G, " +
		"measured in this run: the limit's IDs/s divided by the subject's. The limit is the least any " +
		"generator can do per ID on this host: `limit/clock+cas` reads the default clock and moves one shared " +
		"word with a compare-and-swap (the limit for generators on one word or lock), `limit/per-p` does the same " +
		"on the calling P's own word (the limit for sharded generators). 1× is the physics; a strict generator " +
		"at its ceiling is bound by the layout, not by its code, and reads far above 1×.\n\n")
}

// limitRows are the rows of the cost-over-limit table: a subject, its
// limit, and its ratio at each goroutine count (dash where either side
// lacks the count). Subjects without a measured limit have no row.
func limitRows(run *result.Run, gs []int, names []string, cell map[satKey]result.SaturateResult, format func(float64) string, dash string) [][]string {
	var rows [][]string
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
			if !ok1 || !ok2 || !(r.IDsPerSec > 0) || !(l.IDsPerSec > 0) {
				row = append(row, dash)
				continue
			}
			row = append(row, format(l.IDsPerSec/r.IDsPerSec))
			any = true
		}
		if any {
			rows = append(rows, row)
		}
	}
	return rows
}

func writeSteady(e *md.Writer, run *result.Run) {
	if len(run.Steady) == 0 {
		return
	}
	e.Printf("## Steady\n\n")
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
	e.Table([]string{"Subject", "Target", "Achieved", "Duration", "p50", "p99", "p99.9", "p99.99", "Max", "Check"}, rows)
	if anyCapped {
		e.Text(cappedNote + "\n\n")
	}
	e.Text("**How to read this.** The subject is driven open-loop at the target rate and each " +
		"call's latency is measured from when it was due, not when it started, so a stall shows " +
		"up in the latency of every call queued behind it (no coordinated omission). *Achieved* " +
		"below target means the generator (or the host) could not keep up; the tail percentiles " +
		"then grow with the backlog. At a rate under the ceiling a strict generator should rarely " +
		"wait for a tick, so a p99.99 of a tick length or more points at tick waits or the clock.\n\n")
}

func writeFailures(e *md.Writer, run *result.Run) {
	if len(run.Failures) == 0 {
		return
	}
	e.Printf("## Failures\n\n")
	for _, f := range run.Failures {
		e.Printf("- %s\n", md.Escape(f))
	}
	e.Printf("\nA run with failures exits non-zero: the generator named issued IDs that broke what it promises.\n")
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
// the terminal.
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
