package alternatives

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/units"
)

// Chart file names, under the run's stem: SVG files the report writes
// beside its Markdown, which links them (its HTML page draws them inline):
//
//   - ids-per-sec.svg: IDs/s against clients, one line per scheme, log
//     scale, with the demand and 1 / commit latency as reference lines;
//   - inversion-window.svg: each scheme's widest inversion window (over
//     its client counts), log scale, with snowlab's skew bound.
const (
	chartRate   = "ids-per-sec.svg"
	chartWindow = "inversion-window.svg"
)

func demandText(d float64) string {
	if d <= 0 {
		return "none: every client as fast as it can"
	}
	return units.Rate(d) + " across the fleet, shared evenly by the clients (a scheme that cannot keep up runs flat out)"
}

func clientList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// document lays the run's report out, one function per section.
func document(run *runResult) *report.Document {
	d := &report.Document{}
	writeSetup(d, run)
	writeVerdicts(d, run)
	writeSchemes(d, run)
	writeCommitLatency(d, run.CommitLatency)
	writeCrash(d, run.Crash)
	writeServer(d, run.Server)
	d.Host(run.Host)
	d.Section(2, "How to read this").Prose(howToRead)
	return d
}

// writeSetup is the title and how the run was made: date, commit,
// command, the server, the clients, the demand and each scheme's setup.
func writeSetup(d *report.Document, run *runResult) {
	title := report.Title("The alternatives to snowlab, measured on PostgreSQL", &run.Header)
	c := run.Config
	items := append(report.Provenance(&run.Header),
		fmt.Sprintf("**Schema:** alternatives %d", run.Schema),
		fmt.Sprintf("**Server:** PostgreSQL %s (fsync = %s, synchronous_commit = %s, wal_sync_method = %s, shared_buffers = %s)",
			md.Escape(run.Server.Version), setting(run.Server, "fsync"), setting(run.Server, "synchronous_commit"),
			setting(run.Server, "wal_sync_method"), setting(run.Server, "shared_buffers")),
		fmt.Sprintf("**Runs:** every scheme with %s clients (simulated nodes, one connection each), %s each", clientList(c.Clients), c.Duration),
		"**Demand:** "+demandText(c.Demand),
		fmt.Sprintf("**snowlab clocks:** offset evenly over ±%s, so two clients differ by up to %s; its skew bound (the spread plus one 1 ms tick) is %s",
			ns(c.Skew), ns(2*c.Skew), ns(skewBound(c.Skew))),
	)
	if line := snowiddSetup(run); line != "" {
		items = append(items, "**snowidd:** "+md.Escape(line))
	}
	items = append(items, fmt.Sprintf("**Double buffer:** the next block is fetched in the background once %s of the current one is handed out (Leaf's segment mode)", pct(c.PrefetchShare)))
	d.Section(1, title).List(items...)
}

// writeVerdicts is the claims beside what the run measured, why each
// verdict, and the charts.
func writeVerdicts(d *report.Document, run *runResult) {
	vs := verdicts(find(run), run.Crash)
	var rows [][]string
	var why []string
	for _, v := range vs {
		rows = append(rows, []string{v.Claim, v.Documents, md.OrDash(v.Measured), v.Outcome})
		why = append(why, fmt.Sprintf("**%s: %s.** %s", md.Escape(v.Claim), v.Outcome, md.Escape(v.Why)))
	}
	s := d.Section(2, "Predicted and measured").Table([]string{"Claim", "Predicted", "Measured", "Verdict"}, rows)
	if len(why) > 0 {
		s.List(why...)
	}
	s.Chart(chartRate, "IDs per second against clients, per scheme", rateChart(run)).
		Chart(chartWindow, "Inversion window per scheme", windowChart(run))
}

// writeSchemes is every scheme's figures at each client count, and the
// schemes skipped.
func writeSchemes(d *report.Document, run *runResult) {
	var rows [][]string
	var skipped []string
	for _, s := range run.Schemes {
		for _, p := range s.Points {
			rows = append(rows, schemeRow(s.Name, p))
		}
		if s.Skipped != "" {
			skipped = append(skipped, fmt.Sprintf("**%s** skipped: %s.", md.Escape(s.Name), md.Escape(s.Skipped)))
		}
	}
	sec := d.Section(2, "Schemes").Table([]string{"Scheme", "Clients", "IDs/s", "Kept up", "IDs", "Round trips", "Trip p50", "Trip p99",
		"Per-ID p50", "Per-ID p99", "Adjacent pairs inverted (estimate)", "All pairs inverted", "Inversion window", "Errors"}, rows)
	if len(skipped) > 0 {
		sec.List(skipped...)
	}
}

// schemeRow is one point of the scheme named name: its rate, round trips,
// waits and disorder, and what went wrong.
func schemeRow(name string, p sweepPoint) []string {
	d := p.Disorder
	kept := "—"
	if p.Demand > 0 {
		kept = map[bool]string{true: "yes", false: "no"}[p.KeptUp]
	}
	note := p.Error
	if d.Duplicates > 0 {
		note = strings.TrimPrefix(note+fmt.Sprintf("; %d duplicate IDs", d.Duplicates), "; ")
	}
	return []string{name, fmt.Sprint(p.Clients), units.Rate(p.IDsPerSec), kept, units.Thousands(int(p.IDs)),
		units.Thousands(int(p.Trip.Count)), latencyCell(p.Trip.P50, p.Trip.Count), latencyCell(p.Trip.P99, p.Trip.Count),
		latencyCell(p.PerID.P50, p.PerID.Count), latencyCell(p.PerID.P99, p.PerID.Count),
		pct(d.AdjacentShare), pct(d.PairShare), ns(d.Window), md.Escape(note)}
}

// writeCommitLatency is the server's flush time, which bounds the ticket
// row, and each sync method's.
func writeCommitLatency(d *report.Document, cl commitTiming) {
	s := d.Section(2, "Commit latency")
	if !cl.measured() {
		s.Text(upperFirst(md.Escape(cl.NotMeasured)) + ".")
	} else {
		s.Text(fmt.Sprintf("%s (one 8 kB write and its sync, on the server's data folder): %s per flush with the server's wal_sync_method %s, so one flush per ID allows %s.",
			md.Code(cl.Command), ns(cl.PerOp), md.Code(cl.Method), units.Rate(cl.OpsPerSec)))
	}
	if len(cl.Methods) == 0 {
		return
	}
	var rows [][]string
	for _, m := range cl.Methods {
		if m.OpsPerSec <= 0 {
			rows = append(rows, []string{m.Name, "n/a", "n/a"})
			continue
		}
		rows = append(rows, []string{m.Name, units.Rate(m.OpsPerSec), ns(time.Duration(float64(time.Second) / m.OpsPerSec))})
	}
	s.Table([]string{"Sync method", "Flushes/s", "Per flush"}, rows)
}

// writeCrash is what the ticket row issued again after a crash with
// synchronous_commit = off.
func writeCrash(d *report.Document, cr crashRun) {
	s := d.Section(2, "Crash: the ticket row with synchronous_commit = off")
	switch {
	case cr.Skipped != "":
		s.Text("Skipped: " + md.Escape(cr.Skipped) + ".")
	case cr.Error != "":
		s.Text("Failed: " + md.Escape(cr.Error) + ".")
	default:
		s.Text(fmt.Sprintf("%d clients updated the row with synchronous_commit = off for %s, then the server was stopped with "+
			"`pg_ctl stop -m immediate` and restarted (recovery took %s). Before the stop the clients were handed %s IDs, "+
			"the largest %d; after recovery the row stood at %d, and asked again until it passed %d it issued %s of "+
			"the IDs already handed out a second time.",
			cr.Clients, cr.Before.Round(time.Millisecond), cr.Recovery.Round(time.Millisecond), units.Thousands(int(cr.HandedOut)),
			cr.MaxBefore, cr.RowAfter, cr.MaxBefore, units.Thousands(int(cr.Reissued))))
	}
}

// writeServer is the server's settings and version.
func writeServer(d *report.Document, srv server) {
	var rows [][]string
	for _, k := range slices.Sorted(maps.Keys(srv.Settings)) {
		rows = append(rows, []string{k, srv.Settings[k]})
	}
	rows = append(rows, []string{"version", srv.Version}, []string{"local", fmt.Sprint(srv.Local)})
	d.Section(2, "Server").Table([]string{"Setting", "Value"}, rows)
}

// snowiddSetup says which replica the snowidd schemes called, or why they
// were skipped; "" when none was asked for.
func snowiddSetup(run *runResult) string {
	asked := false
	for _, s := range run.Schemes {
		if s.Scheme.Kind != snowidd {
			continue
		}
		if s.Skipped != "" {
			return "not measured: " + s.Skipped
		}
		asked = true
	}
	if !asked {
		return ""
	}
	line := "a replica at " + md.OrDash(run.Config.Snowidd)
	if run.Config.SnowiddNote != "" {
		line += " (" + run.Config.SnowiddNote + ")"
	}
	return line + ", called over gRPC, each client on a connection of its own"
}

// revision is the run's commit, "<sha>+dirty" for a dirty tree.
func revision(run *runResult) string { return report.Revision(&run.Header) }

func setting(s server, name string) string { return md.Code(md.OrDash(s.Settings[name])) }

func latencyCell(d time.Duration, count int64) string {
	if count == 0 {
		return "—"
	}
	return ns(d)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// howToRead is the report's last section, on what each figure counts.
const howToRead = `Each scheme runs once per number of clients, each client a simulated node on its own connection, for the
same time. With a demand, each client asks for its share of it on a schedule and, when behind, catches up
as fast as it can: *IDs/s* is what the scheme delivered, and *kept up* whether it met 95% of the demand. A
*round trip* is one statement to the server (an UPDATE of the ticket row or of a block's row, a nextval, a
generate_series of nextval); *per ID* is how long a client waited for each ID it handed out, which is a
round trip for the ticket row, a sequence and a stride, and nothing for an ID from a block or batch already
held (the client that spends a block waits for the next, unless the double buffer fetched it in time).

*Disorder* is measured from every ID and the moment it was handed out (the run's monotonic clock, so a
wall-clock step cannot pose as disorder). Sort the IDs: the *adjacent pairs inverted* is the share of
neighbours in that list that were handed out in the other order, an estimate of how often two IDs disagree
with time; *all pairs inverted* counts every pair (an inversion count). The *inversion window* is the largest
time by which an ID sorts before one handed out earlier: how far back a reader sorting by ID can be wrong.
A block (or a per-session sequence cache) reorders by up to its lifetime, the time its node takes to spend
it, so a window as long as the run is a lower bound. Round trips and responses reorder the database's own
IDs a little too: a value issued first can reach its client after a later one.

The *snowidd* schemes are snowlab as a service: each client calls a snowidd replica over gRPC on a
connection of its own, NextID per ID (*snowidd*) or NextIDs for a batch handed out locally (*snowidd/N*), so
a round trip there is a network call, not a statement. The replica mints on one node id, so its IDs
increase in the order it mints them: unbatched, only the responses' travel can reorder them (by up to the
longest call), while a batch reorders like a block, by up to its lifetime.

The ticket row's *ceiling* is 1 / commit latency: updates of one row are serial, and each holds the row
until its commit's WAL flush returns, so the flush time measured by pg_test_fsync bounds it. A sequence does
not pay it per ID: nextval writes WAL only once per 32 values, and its commit waits for a flush only then.
`

// writeTable writes every scheme's figures and the claims' verdicts for
// a terminal: those sections of its report.
func writeTable(w io.Writer, run *runResult) error {
	return document(run).WriteText(w, func(title string) bool {
		return title == "Schemes" || title == "Predicted and measured"
	})
}
