package btree

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

// browserRun is a btree result as a run on SQLite and PostgreSQL records
// it, with an engine that stopped: the widest of its tables (PostgreSQL's,
// with the WAL columns) and both charts.
func browserRun() *runResult {
	key := func(k keyKind, bytes int64, fill float64, pg bool) keyResult {
		kb := 8
		if k.wide() {
			kb = 16
		}
		r := keyResult{Key: k, KeyBytes: kb, Rows: 100_000, InsertsPerSec: 250_000,
			Index:      indexStats{Bytes: bytes, LeafPages: bytes / 4096, InternalPages: 3, Levels: 3, LeafFill: fill, Fragmentation: 0.01, Source: "dbstat"},
			TableBytes: 3 << 20, Tail: &phase{Rows: 10_000, InsertsPerSec: 200_000}}
		if pg {
			r.Index.Source = "pgstatindex"
			r.WAL = &walStats{Bytes: bytes * 3, FPI: 10, StatsSource: "pg_stat_wal"}
			r.Tail.WAL = &walStats{Bytes: bytes / 3, FPI: 100, StatsSource: "pg_stat_wal"}
		}
		return r
	}
	keys := func(pg bool) []keyResult {
		return []keyResult{key(sequence, 2_000_000, 0.92, pg), key(snowlabKey, 2_000_000, 0.92, pg),
			key(uuidV7, 2_800_000, 0.9, pg), key(ulidKey, 2_800_000, 0.9, pg), key(uuidV4, 3_400_000, 0.69, pg)}
	}
	return &runResult{Header: result.Header{Schema: schemaVersion, Experiment: experimentName,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Elapsed: 95 * time.Second,
		Command: []string{"loadgen", "btree", "-rows", "100000"}, Commit: "abc1234", Host: browserHost},
		Config: config{Rows: 100_000, TailRows: 10_000, BatchRows: 500, TxRows: 10_000, PayloadBytes: 64,
			Keys: kinds(), SnowlabPolicy: "strict", SequenceStart: sequenceStart},
		Engines: []engineResult{
			{engineInfo: engineInfo{Engine: engineSQLite, Version: "3.46.0", Driver: "modernc.org/sqlite v1.34.1",
				Layout: "a rowid table and a primary-key index", PageSize: 4096, Settings: map[string]string{"journal_mode": "wal"}}, Keys: keys(false)},
			{engineInfo: engineInfo{Engine: enginePostgres, Version: "PostgreSQL 16.2", Driver: "github.com/jackc/pgx/v5 v5.6.0",
				Layout: "a heap and a B-tree primary-key index", PageSize: 8192, Settings: map[string]string{"fsync": "on"}}, Keys: keys(true)},
			{engineInfo: engineInfo{Engine: engineSQLiteClustered}, Error: "stopped: disk full"},
		}}
}

// TestPageInBrowser renders the page writeFiles writes beside the JSON,
// with its two charts, in headless Chromium, checked as a suite run's page
// is (fixture.CheckInBrowser): every chart drawn and no label cut, the
// tables and sections there and none wider than the window, nothing
// loaded from anywhere, no script error.
func TestPageInBrowser(t *testing.T) {
	bctx := fixture.StartBrowser(t)
	dir := t.TempDir()
	run := browserRun()
	paths, err := writeFiles(dir, run)
	require.NoError(t, err)
	page := filepath.Join(dir, resultdir.ExperimentStem(&run.Header)+".html")
	require.Contains(t, paths, page)
	// Tables: predictions, SQLite's, PostgreSQL's (the stopped engine's
	// has no row), engines, host, clock audit.
	fixture.CheckInBrowser(t, bctx, fixture.BrowserPage{Name: "btree", Path: page, SVGs: 2, Tables: 6,
		Sections: []string{"what-the-key-costs-a-b-tree,-2026-01-02-on-test-host",
			"predicted-and-measured", "sqlite:-3.46.0", "postgresql:-postgresql-16.2", "sqlite-clustered:-",
			"engines", "host", "clock-audit", "how-to-read-this"}})
}
