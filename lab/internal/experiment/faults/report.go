package faults

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/units"
)

// writeFiles writes run into dir as the lab's other experiments are
// written, under the stem <date>-<host>-<sha>-faults: <stem>.json,
// <stem>.md and <stem>.html. It returns the paths written.
func writeFiles(dir string, run *runResult) ([]string, error) {
	cp := *run
	cp.Command = resultdir.RedactArgs(run.Command)
	return document(&cp).WriteFiles(dir, &cp.Header, &cp)
}

// document lays run's report out, one function per section.
func document(run *runResult) *report.Document {
	d := &report.Document{}
	writeSetup(d, run)
	writeVerdict(d, run)
	writeScenarios(d, run)
	writeReplicas(d, run)
	writeChecks(d, run)
	writeFleetStarts(d, run)
	writeTimelines(d, run)
	d.Host(run.Host)
	return d
}

// writeSetup is the title, the run's date, commit and command
// (report.Provenance, as every experiment's), and the rig it built.
func writeSetup(d *report.Document, run *runResult) {
	c := run.Config
	d.Section(1, report.Title("snowlab fault lab", &run.Header)).
		List(append(report.Provenance(&run.Header), "**Set:** "+md.OrDash(c.Set), fmt.Sprintf("**Schema:** faults %d", run.Schema))...).
		Text(fmt.Sprintf("**Rig:** etcd %s on loopback ports with throwaway data folders; every replica's links to it through toxiproxy in the lab's process; "+
			"snowidd replicas as processes (%s), -ttl %v, -window %v (refresh %v), -rewind-hold %v; generators' MaxFloorWait %v; "+
			"etcd's election timeout %v; %d client goroutines, each over its own connections, the four protocols in turn, an attempt on one replica bounded at %v.",
			md.OrDash(c.EtcdVersion), md.Code(c.Snowidd), c.TTL, c.Window, c.Refresh, c.RewindHold, c.MaxFloorWait, c.ElectionTimeout, c.Clients, c.AttemptTimeout))
}

// writeVerdict is the count of scenarios, IDs, duplicates and failures,
// and the failures.
func writeVerdict(d *report.Document, run *runResult) {
	ran, skipped := 0, 0
	ids, dups, order := 0, 0, 0
	for _, s := range run.Scenarios {
		if s.Skipped != "" {
			skipped++
		} else {
			ran++
		}
		ids, dups, order = ids+s.Calls.IDs, dups+s.Calls.Duplicates, order+s.Calls.OrderViolations
	}
	verdict := d.Section(2, "Verdict").
		Text(fmt.Sprintf("%d scenarios run, %d skipped: %s IDs received and checked, **%d duplicates, %d out of order**, %d failures.",
			ran, skipped, units.Thousands(ids), dups, order, len(run.Failures)))
	if len(run.Failures) > 0 {
		verdict.List(run.Failures...)
	}
}

// writeScenarios is each scenario's calls: served, refused, IDs checked
// and the failovers.
func writeScenarios(d *report.Document, run *runResult) {
	var rows [][]string
	for _, s := range run.Scenarios {
		if s.Skipped != "" {
			rows = append(rows, []string{s.Name, "skipped: " + s.Skipped, "", "", "", "", "", "", "", ""})
			continue
		}
		if s.Holders != nil {
			continue
		}
		cl := s.Calls
		refused := maps.Clone(cl.Attempts)
		delete(refused, outcomeOK)
		rows = append(rows, []string{s.Name, units.Thousands(cl.Calls), units.Thousands(cl.Served), units.Thousands(cl.Failed), counts(refused, "%s %s", ", "),
			units.Thousands(cl.IDs), strconv.Itoa(cl.Duplicates), strconv.Itoa(cl.OrderViolations), failover(cl), historyCell(s.History)})
	}
	d.Section(2, "Scenarios").
		Table([]string{"Scenario", "Calls", "Served", "All refused", "Attempts refused, by code", "IDs", "Duplicates", "Out of order", "Failover: n, max, p99", "Porcupine"}, rows).
		Text("A call goes to the next replica round the fleet and, refused, to each other in turn; *All refused* are calls no replica served. " +
			"An attempt is one try on one replica: refused with a status code, `transport` (no answer: a killed replica, a refused connection) or `timeout`. " +
			"*Out of order* counts IDs a client received from a node id that were not above the last it received from that node id. " +
			"*Failover* is the served calls that had first been refused, and how long those took from the first try to the answer. " +
			"*Porcupine* is the independent history check: Porcupine's verdict on the store operations the replicas recorded (acquire, reserve, release, and etcd's renewals of their leases) " +
			"against a sequential model of the store, with how many there were, and the IDs that break fleet-wide uniqueness or their node id's real-time order.")
}

// writeReplicas is how long each replica was down against its bound.
func writeReplicas(d *report.Document, run *runResult) {
	var rows [][]string
	for _, s := range run.Scenarios {
		for _, r := range s.Replicas {
			bound, within := "—", "—"
			if r.Bound > 0 {
				bound, within = dur(r.Bound)+": "+r.BoundWhy, yes(r.within())
			}
			rows = append(rows, []string{s.Name, r.Name, md.OrDash(r.Role), ints(r.Nodes), units.Thousands(r.IDs),
				dur(r.NotReady), dur(r.Refusing), bound, within})
		}
	}
	d.Section(2, "Replicas").
		Table([]string{"Scenario", "Replica", "Role", "Node ids", "IDs", "Longest not ready", "Longest refusing", "Bound", "Within"}, rows).
		Text("*Longest not ready* is the longest span /readyz did not answer 200, polled every 50 ms (a killed replica counts until it is back); " +
			"*Longest refusing* the longest span from an attempt it refused to the next it served. The bound is what the design allows the longer of the two under that scenario's fault, " +
			"made of the TTL, the Window, its refresh, etcd's election and the fault's own length; a replica the fault does not touch has none.")
}

// writeChecks is each scenario's claims and whether they held, when any
// scenario checked one.
func writeChecks(d *report.Document, run *runResult) {
	var rows [][]string
	for _, s := range run.Scenarios {
		for _, c := range s.Checks {
			rows = append(rows, []string{s.Name, c.What, c.Measured, yes(c.OK)})
		}
	}
	if len(rows) > 0 {
		d.Section(2, "Checks").Table([]string{"Scenario", "Claim", "Measured", "Holds"}, rows)
	}
}

// writeFleetStarts is the fleet-start scenarios: how fast every holder
// held a node id, and none shared or lost.
func writeFleetStarts(d *report.Document, run *runResult) {
	var rows [][]string
	for _, s := range run.Scenarios {
		h := s.Holders
		if h == nil {
			continue
		}
		rows = append(rows, []string{s.Name, units.Thousands(h.Holders), strconv.Itoa(h.Members), fmt.Sprintf("%d/%d", h.Acquired, h.Holders),
			dur(h.AllHeld), dur(h.P50), dur(h.P99), units.Thousands(int(h.AcquireCalls)), units.Thousands(int(h.Conflicts)), counts(h.Failures, "%s: %s", "; "),
			strconv.Itoa(h.Shared), strconv.Itoa(h.Lost)})
	}
	if len(rows) == 0 {
		return
	}
	d.Section(2, "Fleet start").
		Table([]string{"Scenario", "Holders", "etcd members", "Held", "All held after", "p50", "p99", "Acquire calls", "Conflicts", "Acquire failures (retried)", "Shared", "Lost"}, rows).
		Text("Every holder is a goroutine with an etcd client of its own (etcdholders), all released from one barrier: the time is from the barrier to the last holder's node id. " +
			"*Conflicts* are claim transactions that found their node id taken by another holder first (Acquire then tries the next); " +
			"*Shared* are node ids held by two leases that were not lost (must be 0); *Lost* leases lost by the time every holder held one.")
}

// writeTimelines is a section per scenario run: what the rig did, what
// it observed, and how long it took.
func writeTimelines(d *report.Document, run *runResult) {
	d.Section(2, "Timelines").Text("What the rig did in each scenario, from the start of the clients' calls, and what it observed.")
	for _, s := range run.Scenarios {
		if s.Skipped != "" {
			continue
		}
		sec := d.Section(3, s.Name+": "+s.Title)
		if items := timeline(s); len(items) > 0 {
			sec.List(items...)
		}
		took := fmt.Sprintf("Took %v.", s.Duration.Round(100*time.Millisecond))
		if s.Load.Recorded() {
			took += " Host meanwhile: " + s.Load.String() + "."
		}
		sec.Text(took)
	}
}

// timeline is scenario s's fault, observations, error and example
// failures as list items, the failures in bold.
func timeline(s scenarioResult) []string {
	items := append([]string(nil), s.Fault...)
	for _, n := range s.Notes {
		items = append(items, "observed: "+n)
	}
	if s.Error != "" {
		first, _, _ := strings.Cut(s.Error, "\n")
		items = append(items, "stopped short: "+first)
	}
	for i, it := range items {
		items[i] = md.Escape(it)
	}
	for _, e := range s.Calls.Examples {
		items = append(items, "**"+md.Escape(e)+"**")
	}
	return items
}

// writeTable writes run's verdict, scenarios, replicas and fleet starts
// for a terminal: those sections of its report.
func writeTable(w io.Writer, run *runResult) error {
	return document(run).WriteText(w, func(title string) bool {
		return slices.Contains([]string{"Verdict", "Scenarios", "Replicas", "Fleet start"}, title)
	})
}

// yes is a cell saying whether a claim held, a failure in bold.
func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**NO**"
}

// counts is a cell of counts by key, in the keys' order, each written
// by format (key, count), joined by sep; "none" when there are none.
func counts(m map[string]int, format, sep string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf(format, k, units.Thousands(m[k])))
	}
	return cmp.Or(strings.Join(parts, sep), "none")
}

func failover(c callStats) string {
	if c.Failovers == 0 {
		return "0"
	}
	return fmt.Sprintf("%s, %s, %s", units.Thousands(c.Failovers), dur(c.FailoverMax), dur(c.FailoverP99))
}

func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func ints(v []int) string {
	if len(v) == 0 {
		return "—"
	}
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// historyCell is a scenario's history check in a cell.
func historyCell(h *historyCheck) string {
	if h == nil {
		return "—"
	}
	cell := fmt.Sprintf("%s, %s ops", h.Porcupine, units.Thousands(h.Ops))
	if h.Renewals > 0 {
		cell += fmt.Sprintf(" (%s renewals)", units.Thousands(h.Renewals))
	}
	if h.IDViolations > 0 {
		cell += fmt.Sprintf(", %d ID violations", h.IDViolations)
	}
	return cell
}
