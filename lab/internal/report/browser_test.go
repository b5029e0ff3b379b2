package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
)

// TestPagesInBrowser renders a run's page (the fixture's, and the newest
// committed run's as an older lab wrote it) and the history page in
// headless Chromium at 1400×900: every chart drawn and no label cut (in the
// browser's own fonts), the tables there and none cut or scrolling
// sideways, the summary on the first screen, nothing loaded from
// anywhere, no script error; a screenshot of each page and of its first
// screen is kept (fixture.CheckInBrowser). An experiment's page is
// checked the same way by its package's TestPageInBrowser.
func TestPagesInBrowser(t *testing.T) {
	bctx := fixture.StartBrowser(t)
	dir := t.TempDir()

	run := fixture.Run()
	runPage := filepath.Join(dir, "run.html")
	writeFile(t, runPage, func(b *bytes.Buffer) error { return writeHTML(b, run) })
	// Three times the history's runs, on a third host too: more commits
	// than the axis has room to label.
	var runs []HistoryRun
	for k, host := range []string{"", "", "build-box-12"} {
		for _, hr := range historyRuns(t, dir) {
			hr.Run.Started = hr.Run.Started.Add(time.Duration(k) * 7 * 24 * time.Hour)
			hr.Run.Commit = fmt.Sprintf("%d%s", k, hr.Run.Commit[1:])
			if host != "" {
				hr.Run.Host.Hostname = host
			}
			runs = append(runs, hr)
		}
	}
	h := NewHistory(runs, nil)
	ip, err := newIndexPage(h)
	require.NoError(t, err)
	indexSections := []string{"changes", "gated", "runs", "ungated", "rates"}
	if len(ip.Ungated) == 0 && len(ip.Short) == 0 {
		indexSections = slices.Delete(indexSections, 3, 4)
	}
	if len(ip.Fairness) > 0 {
		indexSections = append(indexSections, "fairness")
	}
	indexPage := filepath.Join(dir, IndexName)
	writeFile(t, indexPage, func(b *bytes.Buffer) error { return WriteIndex(b, h) })

	// The newest committed run with every workload, as the lab wrote it
	// (an older lab: no load recorded).
	committed := newestFullRun(t)
	committedPage := filepath.Join(dir, "committed.html")
	writeFile(t, committedPage, func(b *bytes.Buffer) error { return writeHTML(b, committed) })

	for _, p := range []fixture.BrowserPage{
		// Tables: the summary's capped and uncapped generators, host,
		// clock audit, subjects, burst and where its time went,
		// saturate, cost over the limit, fairness, steady, its latency
		// both ways. The summary's new columns (issue 30) are on the
		// first screen.
		{Name: "run", Path: runPage, SVGs: len(chartsOf(run)), Tables: 12,
			Sections: []string{"snowlab-lab-run,-2026-03-14-on-lab-vm-3", "summary", "host", "clock-audit", "subjects", "burst", "saturate",
				"cost-over-the-physical-limit", "fairness", "steady", "corrected-and-uncorrected-latency", "failures"}, Summary: true,
			FirstScreen: []string{"Capped generator", "× the fastest capped peer, per node", "Uncapped generator",
				"× the fastest uncapped peer promising as much", fairnessHeader}},
		{Name: "committed", Path: committedPage, SVGs: len(chartsOf(committed)), Tables: tablesOf(committed),
			Sections: sectionsOf(committed), Summary: true},
		// The history: what changed and the gated charts lead its first
		// screen; figures too short to chart are a table.
		{Name: "index", Path: indexPage, SVGs: len(ip.Gated) + len(ip.Ungated) + len(ip.Rates) + len(ip.Fairness),
			Tables: 1 + btoi(len(ip.Short) > 0), Sections: indexSections},
	} {
		assert.Positive(t, p.SVGs, "%s: a run's page and the history draw charts", p.Name)
		fixture.CheckInBrowser(t, bctx, p)
	}
}
