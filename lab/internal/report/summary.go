package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// summaryRow is one generator's line of a run's summary: its best
// saturate figure, what that is of its ceiling and of its physical limit
// at the same goroutine count, the fastest peer that promises as much,
// and every correctness check it was put to.
type summaryRow struct {
	// SubjectInfo is the generator's. A capped one (a strict per-node
	// ceiling, SubjectInfo.Capped) is compared with capped peers per
	// node, the others with the uncapped peers.
	result.SubjectInfo
	// Best is the subject's saturate result with the highest IDs/s
	// (zero when the sweep did not measure it), LimitBest its physical
	// limit's (SubjectInfo.Limit) at Best's goroutine count (zero when not
	// measured).
	Best, LimitBest result.SaturateResult
	// PeerInfo is the peer with the highest IDs/s (per node, for a capped
	// generator) among those that keep the same promise (samePromise)
	// and passed every check, PeerBest that figure (zero for none).
	PeerInfo result.SubjectInfo
	PeerBest result.SaturateResult
	// Fairness is its least fair judged run (worstFairness).
	Fairness string
	Checks   []namedCheck
}

// namedCheck is one measurement of a run: its subject, where it was made
// ("burst via NextID", "saturate G=4", "steady at 1.00M/s"), what its
// correctness check found and how evenly it served its goroutines (nil
// where not measured).
type namedCheck struct {
	Subject, Where string
	Check          result.Check
	Fairness       *result.Fairness
}

// measurements lists every measurement of the run in the order of the
// reports' tables: bursts, the saturate sweep, steady.
func measurements(run *result.Run) []namedCheck {
	var out []namedCheck
	for _, b := range run.Burst {
		out = append(out, namedCheck{b.Subject, "burst via " + b.Via, b.Check, b.Fairness})
	}
	for _, r := range run.Saturate {
		out = append(out, namedCheck{r.Subject, fmt.Sprintf("saturate G=%d", r.Goroutines), r.Check, r.Fairness})
	}
	for _, r := range run.Steady {
		out = append(out, namedCheck{r.Subject, "steady at " + units.Rate(r.TargetRate), r.Check, r.Fairness})
	}
	return out
}

// checksOf is the measurements of subject.
func checksOf(run *result.Run, subject string) []namedCheck {
	return slices.DeleteFunc(measurements(run), func(c namedCheck) bool { return c.Subject != subject })
}

// bestSaturate is subject's saturate result with the highest IDs/s.
func bestSaturate(run *result.Run, subject string) (result.SaturateResult, bool) {
	var best result.SaturateResult
	ok := false
	for _, r := range run.Saturate {
		if r.Subject == subject && r.IDsPerSec > best.IDsPerSec {
			best, ok = r, true
		}
	}
	return best, ok
}

// summarize is the summary of run: a row per generator (every subject
// that is neither a peer nor a physical limit), in the order of
// run.Subjects.
func summarize(run *result.Run) []summaryRow {
	var rows []summaryRow
	for _, s := range run.Subjects {
		if s.Peer || s.Physical {
			continue
		}
		row := summaryRow{SubjectInfo: s, Checks: checksOf(run, s.Name)}
		row.Best, _ = bestSaturate(run, s.Name)
		if s.Limit != "" && row.Best.Goroutines > 0 {
			for _, r := range run.Saturate {
				if r.Subject == s.Limit && r.Goroutines == row.Best.Goroutines {
					row.LimitBest = r
				}
			}
		}
		peerFor(run, s, &row)
		row.Fairness = worstFairness(run, s.Name)
		rows = append(rows, row)
	}
	return rows
}

// samePromise reports whether peer keeps what gen promises, so that the
// two compare like with like: a capped generator (a strict per-node
// ceiling) only with capped peers, an uncapped one only with uncapped
// peers (a capped peer waits out its ceiling, which says nothing of an
// uncapped generator's speed); strict when gen is; and an order at least
// as strong where both files record it (per caller holds per node).
func samePromise(gen, peer result.SubjectInfo) bool {
	if gen.Capped() != peer.Capped() || gen.Strict && !peer.Strict {
		return false
	}
	rank := map[string]int{"none": 0, "shard": 1, "caller": 2}
	g, okG := rank[gen.Order]
	p, okP := rank[peer.Order]
	return !okG || !okP || p >= g
}

// perNode is a rate per node of a subject of nodes node ids: a capped
// generator's ceiling is per node, so that its figures compare per node.
func perNode(r result.SaturateResult, nodes int) float64 { return r.IDsPerSec / float64(max(nodes, 1)) }

// fastestPeer is the peer keep accepts and that passed every check (a
// peer that broke its promise is no yardstick) with the highest value of
// its best saturate figure, and that figure; ok false for none above 0.
func fastestPeer(run *result.Run, keep func(result.SubjectInfo) bool,
	value func(result.SubjectInfo, result.SaturateResult) float64) (peer result.SubjectInfo, best result.SaturateResult, ok bool) {
	top := 0.0
	for _, p := range run.Subjects {
		failed := func(c namedCheck) bool { return !c.Check.OK() }
		if !p.Peer || !keep(p) || slices.ContainsFunc(checksOf(run, p.Name), failed) {
			continue
		}
		if b, measured := bestSaturate(run, p.Name); measured && value(p, b) > top {
			top, peer, best, ok = value(p, b), p, b, true
		}
	}
	return peer, best, ok
}

// peerFor fills row's peer: the fastest (per node, for a capped
// generator) of the peers that keep gen's promise.
func peerFor(run *result.Run, gen result.SubjectInfo, row *summaryRow) {
	value := func(p result.SubjectInfo, b result.SaturateResult) float64 {
		if row.Capped() {
			return perNode(b, p.Nodes)
		}
		return b.IDsPerSec
	}
	if p, b, ok := fastestPeer(run, func(p result.SubjectInfo) bool { return samePromise(gen, p) }, value); ok {
		row.PeerInfo, row.PeerBest = p, b
	}
}

// rateAt is a saturate figure with its goroutine count: "4.12M/s at G=4".
func rateAt(r result.SaturateResult) string {
	return fmt.Sprintf("%s at G=%d", units.Rate(r.IDsPerSec), r.Goroutines)
}

// cells are the row as the summary's tables print it: a capped
// generator's with its share of its ceiling and its peer per node, an
// uncapped one's without.
func (r summaryRow) cells() []string {
	rate, ceiling, limit, peer := "not measured", "—", "—", "—"
	if r.Best.IDsPerSec > 0 {
		rate = rateAt(r.Best)
		if c := r.CeilingIDs; r.Strict && c > 0 {
			ceiling = fmt.Sprintf("%.0f%% of %s/s", 100*r.Best.IDsPerSec/c, units.SI(c, 4, true))
		}
		if r.LimitBest.IDsPerSec > 0 {
			// A cost, as every "over the limit" figure is (the gate's,
			// the cost table's, the README's): 1× is the limit.
			limit = fmt.Sprintf("%.2f× %s", r.LimitBest.IDsPerSec/r.Best.IDsPerSec, r.Limit)
		}
		peer = r.peerCell()
	}
	if !r.Capped() {
		return []string{r.Name, rate, limit, peer, r.Fairness, checksCell(r.Checks)}
	}
	return []string{r.Name, rate, ceiling, limit, peer, r.Fairness, checksCell(r.Checks)}
}

// peerCell is how the row's generator stands against its peer: per node
// for a capped one ("×1 bwmarrin/snowflake (4.09M/s per node, ceiling
// 4.096M/s per node)"), IDs/s for the others.
func (r summaryRow) peerCell() string {
	if r.PeerBest.IDsPerSec <= 0 {
		return "—"
	}
	p := r.PeerInfo
	if !r.Capped() {
		return fmt.Sprintf("×%s %s (%s)", units.TrimSig(r.Best.IDsPerSec/r.PeerBest.IDsPerSec, 2), p.Name, units.Rate(r.PeerBest.IDsPerSec))
	}
	ratio := perNode(r.Best, r.Nodes) / perNode(r.PeerBest, p.Nodes)
	return fmt.Sprintf("×%s %s (%s per node, ceiling %s/s per node)", units.TrimSig(ratio, 2), p.Name,
		units.Rate(perNode(r.PeerBest, p.Nodes)), units.SI(p.CeilingIDs/float64(max(p.Nodes, 1)), 4, true))
}

// checksCell says of every check whether it passed: the failed ones by
// name with what they found, and how many passed.
func checksCell(checks []namedCheck) string {
	if len(checks) == 0 {
		return "none made"
	}
	var failed []string
	for _, c := range checks {
		if !c.Check.OK() {
			failed = append(failed, c.Where+": "+checkShort(c.Check))
		}
	}
	if len(failed) == 0 {
		return fmt.Sprintf("✓ %d of %d passed", len(checks), len(checks))
	}
	s := fmt.Sprintf("✗ %d of %d failed: %s", len(failed), len(checks), strings.Join(failed, "; "))
	if n := len(checks) - len(failed); n > 0 {
		s += fmt.Sprintf("; ✓ %d passed", n)
	}
	return s
}

// writeSummary opens the report with its answer: the verdict on every
// check, the host and its load, and the summary table.
func writeSummary(d *Document, run *result.Run) {
	s := d.Section(2, "Summary")
	all, failed := tally(run, func(result.SubjectInfo) bool { return true })
	verdict := "**Result:** ✓ every correctness check passed"
	if len(all) > 0 {
		verdict += fmt.Sprintf(" (%d of %d)", len(all), len(all))
	}
	if len(failed) > 0 || len(run.Failures) > 0 {
		n := max(len(failed), len(run.Failures))
		verdict = fmt.Sprintf("**Result:** ✗ %d correctness check(s) FAILED", n)
		if len(all) > 0 {
			verdict += fmt.Sprintf(" of %d", len(all))
		}
		verdict += ", see [Failures](#failures)"
		if len(failed) > 0 {
			verdict += ": " + md.Escape(strings.Join(failed, "; "))
		}
	}
	s.Text(verdict + ".")
	s.Text(hostLead(run))

	rows := summarize(run)
	if len(rows) == 0 {
		return
	}
	// The tables first, so that they begin on the first screen; the
	// answer in a line after them.
	writeSummaryTables(s, rows)
	if f := fastest(run, rows); f != "" {
		s.Text(f)
	}
	if u := unfairLead(run); u != "" {
		s.Text(u)
	}
	if peers := peerChecks(run); peers != "" {
		s.Text(peers)
	}
	s.note("summary")
}

// The summary's two tables, each with what it compares.
const (
	cappedLead = "**Capped generators**, each against the fastest peer with the same promises " +
		"(a strict per-node ceiling, order per node), per node:"
	uncappedLead = "**Uncapped generators** (no ceiling, or one they borrow past), each against the fastest peer " +
		"without a ceiling that promises at least as much, in IDs/s:"
)

// fairnessHeader heads the summary's column of each generator's least
// fair run.
const fairnessHeader = "Fairness, worst judged"

// writeSummaryTables writes the capped generators' table and the
// uncapped ones', each after the line that says what it compares.
func writeSummaryTables(s *section, rows []summaryRow) {
	var capped, uncapped [][]string
	for _, r := range rows {
		if r.Capped() {
			capped = append(capped, r.cells())
		} else {
			uncapped = append(uncapped, r.cells())
		}
	}
	if len(capped) > 0 {
		s.Text(cappedLead)
		s.Table([]string{"Capped generator", "Best IDs/s", "Of its ceiling", "Time per ID over its limit at that G",
			"× the fastest capped peer, per node", fairnessHeader, "Checks"}, capped)
	}
	if len(uncapped) > 0 {
		s.Text(uncappedLead)
		s.Table([]string{"Uncapped generator", "Best IDs/s", "Time per ID over its limit at that G",
			"× the fastest uncapped peer promising as much", fairnessHeader, "Checks"}, uncapped)
	}
}

// fastest names the fastest strict generator, the fastest of the others
// and the fastest peer that passed its checks, those the run measured:
// the answer in a line.
func fastest(run *result.Run, rows []summaryRow) string {
	top := map[bool]*summaryRow{} // the fastest measured, by strictness
	for i, r := range rows {
		if t := top[r.Strict]; r.Best.IDsPerSec > 0 && (t == nil || r.Best.IDsPerSec > t.Best.IDsPerSec) {
			top[r.Strict] = &rows[i]
		}
	}
	strict, other := top[true], top[false]
	var parts []string
	if strict != nil {
		p := "strict: " + md.Escape(strict.Name) + " " + rateAt(strict.Best)
		if strict.CeilingIDs > 0 {
			p += fmt.Sprintf(" (%.0f%% of its ceiling)", 100*strict.Best.IDsPerSec/strict.CeilingIDs)
		}
		parts = append(parts, p)
	}
	if other != nil {
		parts = append(parts, "not strict: "+md.Escape(other.Name)+" "+rateAt(other.Best))
	}
	parts = append(parts, fastestPeers(run)...)
	if len(parts) == 0 {
		return ""
	}
	return "**Fastest:** " + strings.Join(parts, " · ") + "."
}

// fastestPeers names the fastest capped peer and the fastest uncapped
// one that passed their checks, each in its class: a capped peer's
// figure is its ceiling's, not its code's.
func fastestPeers(run *result.Run) []string {
	var parts []string
	rate := func(_ result.SubjectInfo, b result.SaturateResult) float64 { return b.IDsPerSec }
	for _, capped := range []bool{true, false} {
		p, best, ok := fastestPeer(run, func(p result.SubjectInfo) bool { return p.Capped() == capped }, rate)
		if !ok {
			continue
		}
		class := "of the uncapped peers: "
		if capped {
			class = "of the capped peers: "
		}
		parts = append(parts, class+md.Escape(p.Name)+" "+rateAt(best))
	}
	return parts
}

// peerChecks says how the checks of the peers and the physical limits
// went, those the table's rows leave out; "" when there are none.
func peerChecks(run *result.Run) string {
	all, failed := tally(run, func(s result.SubjectInfo) bool { return s.Peer || s.Physical })
	switch {
	case len(all) == 0:
		return ""
	case len(failed) == 0:
		return fmt.Sprintf("**Peers and physical limits:** ✓ all %d checks passed.", len(all))
	}
	return fmt.Sprintf("**Peers and physical limits:** ✗ %d of %d checks failed: %s; ✓ %d passed.",
		len(failed), len(all), md.Escape(strings.Join(failed, "; ")), len(all)-len(failed))
}

// tally is where the run checked the subjects keep accepts, and the
// failed checks, each as "subject (where): what it found".
func tally(run *result.Run, keep func(result.SubjectInfo) bool) (all, failed []string) {
	for _, sub := range run.Subjects {
		if !keep(sub) {
			continue
		}
		for _, c := range checksOf(run, sub.Name) {
			all = append(all, c.Where)
			if !c.Check.OK() {
				failed = append(failed, fmt.Sprintf("%s (%s): %s", sub.Name, c.Where, checkShort(c.Check)))
			}
		}
	}
	return all, failed
}

// hostLead is the host in one paragraph: what it is, and its load, with
// a warning when the host was busy.
func hostLead(run *result.Run) string {
	h := run.Host
	s := "**Host:** " + md.Escape(h.String())
	switch l := h.Load; {
	case l == nil:
		return s + " · load not recorded (not measured by the lab or experiment that wrote this file)"
	case host.Busy(l):
		return s + " · " + md.Escape(l.String()) + fmt.Sprintf(". **Busy host:** others took %s of the CPU time; "+
			"absolute figures, tail latencies most of all, are partly the host's (the gate's ratios, read within the run, "+
			"cancel much of it).", result.Percent(l.Taken()))
	default:
		return s + " · " + md.Escape(l.String())
	}
}
