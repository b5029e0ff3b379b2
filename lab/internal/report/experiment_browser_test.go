package report_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/experiment/btree"
	"github.com/snowlab/snowlab/lab/internal/experiment/faults"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

var testHost = result.Host{Hostname: "test-host", CPU: "test cpu", PhysicalCores: 2, LogicalCores: 4, GOMAXPROCS: 4, GoVersion: "go-test",
	ClockAudit: []result.ClockReport{{Name: "time.Now", NsPerRead: 21.7, ResolutionNs: 20, KernelResolution: 1}}}

// btreeRun is a btree result as a run on SQLite and PostgreSQL records
// it, with an engine that stopped: the widest of its tables (PostgreSQL's,
// with the WAL columns) and both charts.
func btreeRun() *btree.Result {
	key := func(k btree.KeyKind, bytes int64, fill float64, pg bool) btree.KeyResult {
		kb := 8
		if k.Wide() {
			kb = 16
		}
		r := btree.KeyResult{Key: k, KeyBytes: kb, Rows: 100_000, InsertsPerSec: 250_000,
			Index:      btree.IndexStats{Bytes: bytes, LeafPages: bytes / 4096, InternalPages: 3, Levels: 3, LeafFill: fill, Fragmentation: 0.01, Source: "dbstat"},
			TableBytes: 3 << 20, Tail: &btree.Phase{Rows: 10_000, InsertsPerSec: 200_000}}
		if pg {
			r.Index.Source = "pgstatindex"
			r.WAL = &btree.WALStats{Bytes: bytes * 3, FPI: 10, StatsSource: "pg_stat_wal"}
			r.Tail.WAL = &btree.WALStats{Bytes: bytes / 3, FPI: 100, StatsSource: "pg_stat_wal"}
		}
		return r
	}
	keys := func(pg bool) []btree.KeyResult {
		return []btree.KeyResult{key(btree.Sequence, 2_000_000, 0.92, pg), key(btree.Snowlab, 2_000_000, 0.92, pg),
			key(btree.UUIDv7, 2_800_000, 0.9, pg), key(btree.ULID, 2_800_000, 0.9, pg), key(btree.UUIDv4, 3_400_000, 0.69, pg)}
	}
	return &btree.Result{Header: result.Header{Schema: btree.SchemaVersion, Experiment: btree.Experiment,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Elapsed: 95 * time.Second,
		Command: []string{"loadgen", "btree", "-rows", "100000"}, Commit: "abc1234", Host: testHost},
		Config: btree.Config{Rows: 100_000, TailRows: 10_000, BatchRows: 500, TxRows: 10_000, PayloadBytes: 64,
			Keys: btree.Kinds(), SnowlabPolicy: "strict", SequenceStart: btree.SequenceStart},
		Engines: []btree.EngineResult{
			{EngineInfo: btree.EngineInfo{Engine: btree.EngineSQLite, Version: "3.46.0", Driver: "modernc.org/sqlite v1.34.1",
				Layout: "a rowid table and a primary-key index", PageSize: 4096, Settings: map[string]string{"journal_mode": "wal"}}, Keys: keys(false)},
			{EngineInfo: btree.EngineInfo{Engine: btree.EnginePostgres, Version: "PostgreSQL 16.2", Driver: "github.com/jackc/pgx/v5 v5.6.0",
				Layout: "a heap and a B-tree primary-key index", PageSize: 8192, Settings: map[string]string{"fsync": "on"}}, Keys: keys(true)},
			{EngineInfo: btree.EngineInfo{Engine: btree.EngineSQLiteClustered}, Error: "stopped: disk full"},
		}}
}

// faultsRun is a fault-lab result with a scenario that held, one that
// broke its bound, a skipped one and a fleet start: every table it has.
func faultsRun() *faults.Result {
	return &faults.Result{Header: result.Header{Schema: faults.SchemaVersion, Experiment: faults.Experiment,
		Started: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Command: []string{"loadgen", "faults"}, Commit: "abc1234", Host: testHost},
		Config: faults.Config{TTL: faults.DefaultTTL, Window: faults.DefaultWindow, Set: "short"},
		Scenarios: []faults.ScenarioResult{
			{Name: "leader-killed", Title: "the leader killed", Duration: 20 * time.Second, Fault: []string{"1.5 s: SIGKILL etcd m1, the leader"},
				Calls:    faults.CallStats{Calls: 100, Served: 100, Attempts: map[string]int{"ok": 100, "unavailable": 3}, IDs: 5000},
				Replicas: []faults.ReplicaStat{{Name: "r0", Nodes: []int{0}, IDs: 5000, NotReady: time.Second, Bound: 3 * time.Second, BoundWhy: "election"}}},
			{Name: "replica-cut-off", Title: "cut off", Duration: 20 * time.Second,
				Calls:    faults.CallStats{Calls: 10, Served: 9, Failed: 1, IDs: 90, Duplicates: 1, Examples: []string{"ID 1 (node 0) received twice"}},
				Replicas: []faults.ReplicaStat{{Name: "r0", Role: "cut off", Refusing: 9 * time.Second, Bound: 7 * time.Second, BoundWhy: "the cut-off + 1 s"}},
				Checks:   []faults.Check{{What: "the successor started after the reservation", Measured: "1 ms before it"}}},
			{Name: "clock-steps", Skipped: "needs a fault-injection build"},
			{Name: "holders-1024", Holders: &faults.HoldersReport{Holders: 1024, Members: 3, Acquired: 1024, AllHeld: 9 * time.Second},
				Checks: []faults.Check{{What: "no node id held by two", Measured: "0 shared", OK: true}}},
		},
		Failures: []string{"replica-cut-off: 1 duplicate IDs"}}
}

// TestExperimentPagesInBrowser renders the pages an experiment writes
// beside its JSON (btree's with its two charts, the fault lab's) in
// headless Chromium, checked as a suite run's page is: every chart drawn
// and no label cut, the tables and sections there and none wider than
// the window, nothing loaded from anywhere, no script error.
func TestExperimentPagesInBrowser(t *testing.T) {
	bctx := report.StartBrowser(t)
	dir := t.TempDir()
	bt := btreeRun()
	paths, err := btree.WriteFiles(dir, bt)
	require.NoError(t, err)
	btreePage := filepath.Join(dir, resultdir.ExperimentStem(&bt.Header)+".html")
	require.Contains(t, paths, btreePage)
	fr := faultsRun()
	paths, err = faults.WriteFiles(dir, fr)
	require.NoError(t, err)
	faultsPage := filepath.Join(dir, resultdir.ExperimentStem(&fr.Header)+".html")
	require.Contains(t, paths, faultsPage)

	for _, p := range []report.BrowserPage{
		// Tables: predictions, SQLite's, PostgreSQL's (the stopped
		// engine's has no row), engines, host, clock audit.
		{Name: "btree", Path: btreePage, SVGs: 2, Tables: 6, Sections: []string{"what-the-key-costs-a-b-tree,-2026-01-02-on-test-host",
			"predicted-and-measured", "sqlite:-3.46.0", "postgresql:-postgresql-16.2", "sqlite-clustered:-",
			"engines", "host", "clock-audit", "how-to-read-this"}},
		// Tables: scenarios, replicas, checks, fleet start, host, clock
		// audit; a timeline per scenario that ran.
		{Name: "faults", Path: faultsPage, SVGs: 0, Tables: 6, Sections: []string{"snowlab-fault-lab-2026-12-01-on-test-host",
			"verdict", "scenarios", "replicas", "checks", "fleet-start", "timelines", "leader-killed:-the-leader-killed",
			"replica-cut-off:-cut-off", "holders-1024:-", "host", "clock-audit"}},
	} {
		report.CheckInBrowser(t, bctx, p)
	}
}
