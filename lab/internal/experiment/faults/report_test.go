package faults

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// sampleRun is a run with a scenario that held, one that broke a bound
// and a check and received a duplicate, a skipped one and a fleet start.
func sampleRun() *runResult {
	good := scenarioResult{Name: "leader-killed", Title: "the leader killed", Duration: 20 * time.Second,
		Fault:    []string{"  1.5 s: SIGKILL etcd m1, the leader"},
		Calls:    callStats{Calls: 100, Served: 100, Attempts: map[string]int{"ok": 100, "unavailable": 3}, IDs: 5000, Failovers: 3, FailoverMax: 2 * time.Millisecond},
		Replicas: []replicaStat{{Name: "r0", Nodes: []int{0}, IDs: 5000, NotReady: time.Second, Bound: 3 * time.Second, BoundWhy: "election"}}}
	bad := scenarioResult{Name: "replica-cut-off", Title: "cut off", Duration: 20 * time.Second,
		Calls:    callStats{Calls: 10, Served: 9, Failed: 1, Attempts: map[string]int{"transport": 2}, IDs: 90, Duplicates: 1, Examples: []string{"ID 1 (node 0) received twice"}},
		Replicas: []replicaStat{{Name: "r0", Role: "cut off", Refusing: 9 * time.Second, Bound: 7 * time.Second, BoundWhy: "the cut-off (6 s) + 1 s"}},
		Checks:   []check{{What: "the successor started after the reservation", Measured: "1 ms before it", OK: false}},
		Notes:    []string{"etcd expired r0's lease 3.2 s after"}}
	skipped := scenarioResult{Name: "clock-steps", Skipped: "needs a fault-injection build"}
	fleet := scenarioResult{Name: "holders-1024", Holders: &holdersReport{Holders: 1024, Members: 3, Acquired: 1024, AllHeld: 9 * time.Second, Conflicts: 10525, Distinct: 1024},
		Checks: []check{{What: "no node id held by two", Measured: "0 shared", OK: true}}}
	run := &runResult{Header: result.Header{Schema: schemaVersion, Experiment: experimentName, Started: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Command: []string{"loadgen", "faults"}, Commit: "abc1234", Host: result.Host{Hostname: "vm"}},
		Config: config{TTL: defaultTTL, Window: defaultWindow, Set: "full"}, Scenarios: []scenarioResult{good, bad, skipped, fleet}}
	for _, s := range run.Scenarios {
		run.Failures = append(run.Failures, failures(s)...)
	}
	return run
}

// What a scenario shows wrong is a failure: a duplicate, a check that
// does not hold, a replica over its bound; one within everything is not.
func TestFailures(t *testing.T) {
	run := sampleRun()
	assert.Empty(t, failures(run.Scenarios[0]))
	got := strings.Join(failures(run.Scenarios[1]), "\n")
	for _, want := range []string{"replica-cut-off: 1 duplicate IDs", "replica r0 refused or was not ready for 9s, over its bound of 7s",
		"the successor started after the reservation: 1 ms before it"} {
		assert.Contains(t, got, want)
	}
	assert.Len(t, run.Failures, 3)
	assert.True(t, replicaStat{}.within(), "no bound, nothing to exceed")
}

// The run is written as JSON, Markdown and HTML under one stem; the
// reports name every scenario, the figures, the failures, the skipped and
// the fleet start, and the JSON reads back.
func TestWriteFiles(t *testing.T) {
	run := sampleRun()
	dir := t.TempDir()
	paths, err := writeFiles(dir, run)
	require.NoError(t, err)
	stem := resultdir.ExperimentStem(&run.Header)
	assert.Equal(t, []string{filepath.Join(dir, stem+".json"), filepath.Join(dir, stem+".md"), filepath.Join(dir, stem+".html")}, paths)
	assert.True(t, strings.HasSuffix(stem, "-faults"))
	md, err := os.ReadFile(paths[1])
	require.NoError(t, err)
	for _, want := range []string{"# snowlab fault lab, 2026-12-01 on vm", "**1 duplicates, 0 out of order**, 3 failures",
		"| leader-killed | 100 | 100 | 0 | unavailable 3 | 5,000 | 0 | 0 | 3, 2ms, 0 |",
		"| replica-cut-off | r0 | cut off | — | 0 | 0 | 9s | 7s: the cut-off (6 s) + 1 s | **NO** |",
		"| clock-steps | skipped: needs a fault-injection build", "| holders-1024 | 1,024 | 3 | 1024/1024 | 9s |",
		"observed: etcd expired r0's lease", "**ID 1 (node 0) received twice**", "## Host"} {
		assert.Contains(t, string(md), want)
	}
	html, err := os.ReadFile(paths[2])
	require.NoError(t, err)
	assert.Contains(t, string(html), "<h2>Replicas</h2>")
	assert.NotContains(t, string(html), "<script")
	var back runResult
	data, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, experimentName, back.Experiment)
	assert.Equal(t, run.Scenarios[1].Calls.Duplicates, back.Scenarios[1].Calls.Duplicates)
	var table strings.Builder
	require.NoError(t, writeTable(&table, run))
	assert.Regexp(t, `(?m)^replica-cut-off +r0 +cut off +— +0 +0 +9s +7s: the cut-off \(6 s\) \+ 1 s +NO$`, table.String())
	assert.Contains(t, table.String(), "1 duplicates, 0 out of order, 3 failures")
	assert.NotContains(t, table.String(), "**", "no markup")
}
