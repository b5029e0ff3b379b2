package faults

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// browserHost is the host the pages name, with a clock audit: every
// section a page can have.
var browserHost = result.Host{Hostname: "test-host", CPU: "test cpu", PhysicalCores: 2, LogicalCores: 4, GOMAXPROCS: 4, GoVersion: "go-test",
	ClockAudit: []result.ClockReport{{Name: "time.Now", NsPerRead: 21.7, ResolutionNs: 20, KernelResolution: 1}}}

// browserRun is a fault-lab result with a scenario that held, one that
// broke its bound, a skipped one and a fleet start: every table it has.
func browserRun() *runResult {
	return &runResult{Header: result.Header{Schema: schemaVersion, Experiment: experimentName,
		Started: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Command: []string{"loadgen", "faults"}, Commit: "abc1234", Host: browserHost},
		Config: config{TTL: defaultTTL, Window: defaultWindow, Set: "short"},
		Scenarios: []scenarioResult{
			{Name: "leader-killed", Title: "the leader killed", Duration: 20 * time.Second, Fault: []string{"1.5 s: SIGKILL etcd m1, the leader"},
				Calls:    callStats{Calls: 100, Served: 100, Attempts: map[string]int{"ok": 100, "unavailable": 3}, IDs: 5000},
				Replicas: []replicaStat{{Name: "r0", Nodes: []int{0}, IDs: 5000, NotReady: time.Second, Bound: 3 * time.Second, BoundWhy: "election"}}},
			{Name: "replica-cut-off", Title: "cut off", Duration: 20 * time.Second,
				Calls:    callStats{Calls: 10, Served: 9, Failed: 1, IDs: 90, Duplicates: 1, Examples: []string{"ID 1 (node 0) received twice"}},
				Replicas: []replicaStat{{Name: "r0", Role: "cut off", Refusing: 9 * time.Second, Bound: 7 * time.Second, BoundWhy: "the cut-off + 1 s"}},
				Checks:   []check{{What: "the successor started after the reservation", Measured: "1 ms before it"}}},
			{Name: "clock-steps", Skipped: "needs a fault-injection build"},
			{Name: "holders-1024", Holders: &holdersReport{Holders: 1024, Members: 3, Acquired: 1024, AllHeld: 9 * time.Second},
				Checks: []check{{What: "no node id held by two", Measured: "0 shared", OK: true}}},
		},
		Failures: []string{"replica-cut-off: 1 duplicate IDs"}}
}

// TestPageInBrowser renders the page writeFiles writes beside the JSON in
// headless Chromium, checked as a suite run's page is
// (fixture.CheckInBrowser): the tables and sections there and none wider
// than the window, nothing loaded from anywhere, no script error.
func TestPageInBrowser(t *testing.T) {
	bctx := fixture.StartBrowser(t)
	dir := t.TempDir()
	run := browserRun()
	paths, err := writeFiles(dir, run)
	require.NoError(t, err)
	page := filepath.Join(dir, resultdir.ExperimentStem(&run.Header)+".html")
	require.Contains(t, paths, page)
	// Tables: scenarios, replicas, checks, fleet start, host, clock
	// audit; a timeline per scenario that ran.
	fixture.CheckInBrowser(t, bctx, fixture.BrowserPage{Name: "faults", Path: page, SVGs: 0, Tables: 6,
		Sections: []string{"snowlab-fault-lab,-2026-12-01-on-test-host",
			"verdict", "scenarios", "replicas", "checks", "fleet-start", "timelines", "leader-killed:-the-leader-killed",
			"replica-cut-off:-cut-off", "holders-1024:-", "host", "clock-audit"}})
}
