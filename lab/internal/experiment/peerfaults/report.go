package peerfaults

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

// writeFiles writes the run into dir under the stem
// <date>-<host>-<sha>-peerfaults: its JSON, Markdown and HTML page.
func writeFiles(dir string, r *runResult) ([]string, error) {
	return document(r).WriteFiles(dir, &r.Header, r)
}

// writeTable writes the run's report for the terminal, less the
// trackers' words and the host.
func writeTable(w io.Writer, r *runResult) error {
	return document(r).WriteText(w, func(title string) bool { return title != "Host" && title != "The peers' reports" })
}

type cells struct{ ids, dups, breaks, ahead, waited, rewinds string }

// figures are a row's counts as table cells; a peer that is not run has
// none.
func figures(row subjectRow) cells {
	if row.Expect == expectNotRun {
		return cells{"—", "—", "—", "—", "—", "—"}
	}
	dur := func(d time.Duration) string {
		if d == 0 {
			return "0"
		}
		return units.Ns(float64(d))
	}
	return cells{fmt.Sprint(row.IDs), fmt.Sprint(row.Duplicates), fmt.Sprintf("%d / %d", row.OrderBreaks, row.RestartBreaks),
		dur(row.FloorAhead), dur(row.Waited), fmt.Sprint(row.RewindWaits)}
}

// refused lists the refusals: "1400 ErrClockBackwards".
func refused(row subjectRow) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(row.Refused)) {
		parts = append(parts, fmt.Sprintf("%d %s", row.Refused[k], k))
	}
	return strings.Join(parts, ", ")
}

// instead is what a row's subject did instead of repeating IDs, in words.
func instead(row subjectRow) string {
	if row.Expect == expectNotRun {
		return "not run: the fault pattern is replayed against snowlab in the rows below"
	}
	var parts []string
	if row.FloorAhead > 0 {
		parts = append(parts, fmt.Sprintf("the floor was %s ahead of the restart's clock; its constructor waited %s",
			units.Ns(float64(row.FloorAhead)), figures(row).waited))
	}
	if row.RewindWaits > 0 {
		parts = append(parts, fmt.Sprintf("%d rewind wait(s)", row.RewindWaits))
	}
	if s := refused(row); s != "" {
		parts = append(parts, "refused: "+s)
	}
	if row.Note != "" {
		parts = append(parts, row.Note)
	}
	return strings.Join(parts, "; ")
}

var replayHeader = []string{"Peer's report", "Side", "Subject", "Fault replayed", "How the fault reached it", "IDs", "Duplicates",
	"Order breaks (in process / across restart)", "Instead", "Check"}

func replayRows(r *runResult) [][]string {
	issue := map[string]scenario{}
	for _, sc := range r.Scenarios {
		issue[sc.Name] = sc
	}
	var rows [][]string
	for _, row := range r.Rows {
		sc := issue[row.Scenario]
		f := figures(row)
		rows = append(rows, []string{
			fmt.Sprintf("[%s](%s) (%s)", sc.Issue, sc.URL, md.Code(sc.Name)),
			row.Side, md.Escape(row.Subject), md.Escape(md.OrDash(row.Fault)), md.Escape(md.OrDash(row.Injected)), f.ids, f.dups, f.breaks,
			md.Escape(instead(row)), md.Escape(row.Check)})
	}
	return rows
}

var reportHeader = []string{"Scenario", "Issue", "What the tracker says", "The peer here"}

func reportRows(r *runResult) [][]string {
	var rows [][]string
	for _, sc := range r.Scenarios {
		rows = append(rows, []string{md.Code(sc.Name), md.Code(sc.URL), md.Escape(sc.Report), md.Escape(sc.Peer)})
	}
	return rows
}

// lead is the run's answer in a sentence or two, from its rows.
func lead(r *runResult) string {
	var peer, snow, rows int
	for _, row := range r.Rows {
		switch row.Side {
		case sidePeer:
			peer += row.Duplicates
		case sideSnowlab:
			snow += row.Duplicates
			rows++
		}
	}
	verdict := "Every check passed"
	if len(r.Failures) > 0 {
		verdict = fmt.Sprintf("**%d check(s) FAILED**: %s", len(r.Failures), md.Escape(strings.Join(r.Failures, "; ")))
	}
	return fmt.Sprintf("The peers run here repeated **%d** IDs under their reported faults; snowlab's compositions repeated **%d** in %d rows under the same faults, waiting or refusing instead. %s.",
		peer, snow, rows, verdict)
}

// document lays the run out as a report page.
func document(r *runResult) *report.Document {
	d := &report.Document{}
	items := append(report.Provenance(&r.Header), fmt.Sprintf("**Schema:** peerfaults %d", r.Schema),
		"**Clock:** "+md.Escape(r.Clock),
		fmt.Sprintf("**Rate:** %d IDs per millisecond per process in the steady runs; baidu-88: %d restarts", r.PerMs, r.Restarts))
	d.Section(1, report.Title("The peers' reported failures, replayed", &r.Header)).List(items...).Text(lead(r))
	d.Section(2, "Replays").Prose(replayText).Table(replayHeader, replayRows(r))
	d.Section(2, "The peers' reports").Prose(reportText).Table(reportHeader, reportRows(r))
	d.Host(r.Host)
	return d
}

const replayText = `One row per subject under a scenario's fault. *peer* is the peer library itself where it is a Go
library the lab measures (bwmarrin/snowflake), or the peer named and not run; *control* is snowlab's
generator with its defence taken away (a node id named by hand, no lease, no StaticConfig) under the same
fault, to show that the fault is real for any Snowflake generator and that the count can fail;
*snowlab* is a documented composition. Every process asks for its IDs at a steady rate, one call per
ID, so that every millisecond a rollback lands on was used. *Duplicates* counts IDs received more than
once over all the row's processes; *order breaks* counts IDs not above the one their process minted
before (in process) and a restarted process's IDs not above the last its predecessor minted (across
restart, which snowlab promises only on the same node id). *Instead* is what the subject did instead:
how far the floor its node id's previous holder left was ahead of the restarted process's clock (what
a Strict generator must wait and a Monotonic one borrows) and how long its constructor waited, the
rewinds it waited out (MaxWait), the calls and lease requests it refused, by the error they wrapped.

The check: a peer or control row must show duplicates (the replay reproduces the fault); a snowlab
row must show none, nor an order break it promises.`

const reportText = `Each tracker entry as read on the peer's tracker. Leaf, yitter/IdGenerator and baidu/uid-generator are
not Go libraries the lab measures, so only the fault pattern is replayed, against snowlab; the peer is
not run and no figure is claimed for it.`
