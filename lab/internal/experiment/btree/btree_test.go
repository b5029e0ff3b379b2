package btree

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// testRows is small enough for the race detector and big enough for a
// three-level-free but many-leaf index: the properties checked hold at
// any size.
const testRows = 20_000

func testHost() *result.Host {
	return &result.Host{Hostname: "test-host", CPU: "test cpu", GOMAXPROCS: 2, GoVersion: "go-test"}
}

func mustExecute(t *testing.T, engines ...engine) *runResult {
	t.Helper()
	t.Cleanup(func() {
		for _, e := range engines {
			assert.NoError(t, e.Close())
		}
	})
	run, err := execute(context.Background(), options{Rows: testRows, Engines: engines, Host: testHost(), Commit: "abc1234"})
	require.NoError(t, err)
	require.Len(t, run.Engines, len(engines))
	for _, e := range run.Engines {
		require.Empty(t, e.Error)
		require.Len(t, e.Keys, len(kinds()), e.Engine)
		for _, r := range e.Keys {
			assert.Equal(t, testRows, r.Rows)
			assert.Positive(t, r.Index.Bytes, "%s %s", e.Engine, r.Key)
			assert.Positive(t, r.InsertsPerSec, "%s %s", e.Engine, r.Key)
			require.NotNil(t, r.Tail, "%s %s", e.Engine, r.Key)
			assert.Equal(t, testRows/10, r.Tail.Rows)
		}
	}
	return run
}

func key(t *testing.T, e engineResult, k keyKind) keyResult {
	t.Helper()
	r, ok := e.key(k)
	require.True(t, ok, "%s has no %s", e.Engine, k)
	return r
}

// checkOrdered checks what must hold on every engine at any size: the
// snowlab key's index within a few percent of the ideal sequence's, the
// two time-ordered 16-byte keys alike, the random key bigger than the
// bigints (it is twice as wide) and its leaves out of file order where the
// ordered keys' are in it.
func checkOrdered(t *testing.T, e engineResult) {
	seq, snow := key(t, e, sequence), key(t, e, snowlabKey)
	v7, ul, v4 := key(t, e, uuidV7), key(t, e, ulidKey), key(t, e, uuidV4)
	assert.InEpsilon(t, float64(seq.Index.Bytes), float64(snow.Index.Bytes), 0.03,
		"%s: snowlab index %d bytes, sequence %d", e.Engine, snow.Index.Bytes, seq.Index.Bytes)
	assert.InEpsilon(t, float64(v7.Index.Bytes), float64(ul.Index.Bytes), 0.03,
		"%s: UUIDv7 %d bytes, ULID %d", e.Engine, v7.Index.Bytes, ul.Index.Bytes)
	for _, r := range []keyResult{seq, snow} {
		assert.Greater(t, v4.Index.Bytes, r.Index.Bytes, "%s: UUIDv4 index not larger than %s's", e.Engine, r.Key)
	}
	for _, r := range []keyResult{seq, snow, v7, ul} {
		require.True(t, r.Index.fillKnown(), "%s %s: %s", e.Engine, r.Key, r.Index.Source)
		assert.Less(t, r.Index.Fragmentation, 0.05, "%s %s: an appended index's leaves follow the file", e.Engine, r.Key)
		assert.Greater(t, r.Index.LeafFill, 0.8, "%s %s: appended leaves are packed", e.Engine, r.Key)
	}
	assert.Greater(t, v4.Index.Fragmentation, 0.2, "%s: random inserts scatter the leaves", e.Engine)
}

func TestSQLite(t *testing.T) {
	idx, err := openSQLite(sqliteOptions{})
	require.NoError(t, err)
	clu, err := openSQLite(sqliteOptions{Clustered: true})
	require.NoError(t, err)
	run := mustExecute(t, idx, clu)
	for _, e := range run.Engines {
		checkOrdered(t, e)
		assert.Equal(t, 4096, e.PageSize)
		assert.Contains(t, e.Version, "SQLite 3.")
		assert.Contains(t, e.Driver, "modernc.org/sqlite")
		for _, r := range e.Keys {
			assert.Equal(t, "dbstat", r.Index.Source)
			assert.Nil(t, r.WAL, "SQLite reports no WAL")
			assert.Positive(t, r.FileBytes)
		}
	}
	// The index layout measures the key alone: a 16-byte key's index is
	// bigger than a bigint's whatever the order (SQLite rebalances over
	// three siblings, so a random key's leaves are not left half empty and
	// uuidV4 is not bigger than uuidV7 there: the documents' fill penalty
	// is PostgreSQL's split rule, not SQLite's).
	si := run.Engines[0]
	assert.Greater(t, key(t, si, uuidV7).Index.Bytes, key(t, si, snowlabKey).Index.Bytes)
	assert.Positive(t, key(t, si, snowlabKey).TableBytes, "the rowid table is measured beside the index")
	assert.Zero(t, key(t, run.Engines[1], snowlabKey).TableBytes, "a clustered table is its key's B-tree")

	// Files: JSON that reads back, Markdown with the comparison, charts,
	// the page with the same sections and the charts inline.
	dir := t.TempDir()
	paths, err := writeFiles(dir, run)
	require.NoError(t, err)
	stem := filepath.Join(dir, resultdir.ExperimentStem(&run.Header))
	assert.True(t, strings.HasSuffix(stem, "-test-host-abc1234-btree"), stem)
	assert.Equal(t, []string{stem + ".json", stem + ".md", filepath.Join(stem, "index-size.svg"), filepath.Join(stem, "leaf-fill.svg"), stem + ".html"}, paths)
	back, err := readResult(stem + ".json")
	require.NoError(t, err)
	assert.Equal(t, run.Config, back.Config)
	// The engine's fields, embedded, are read back at the top of each
	// engine's object, as the committed results have them.
	assert.Equal(t, run.Engines[0].engineInfo, back.Engines[0].engineInfo)
	assert.NotEmpty(t, back.Engines[0].Engine)
	assert.Equal(t, key(t, run.Engines[0], uuidV4).Index, key(t, back.Engines[0], uuidV4).Index)
	md, err := os.ReadFile(stem + ".md")
	require.NoError(t, err)
	for _, want := range []string{"## Predicted and measured", "UUIDv4 / bigint index size",
		"1.8× (1.4× width × 1.3× fill)", "~69% (ln 2", "## sqlite-clustered", "## Host", "## How to read this"} {
		assert.Contains(t, string(md), want)
	}
	assert.Contains(t, string(md), "![Index size per key kind and engine]("+resultdir.ExperimentStem(&run.Header)+"/index-size.svg)")
	page, err := os.ReadFile(stem + ".html")
	require.NoError(t, err)
	for _, want := range []string{"<h2>Predicted and measured</h2>", "<h2>sqlite-clustered: ", "<h2>Host</h2>",
		"<h2>How to read this</h2>", "<em>Width</em>", "<figcaption>Leaf fill per key kind and engine</figcaption>"} {
		assert.Contains(t, string(page), want)
	}
	assert.Equal(t, 2, strings.Count(string(page), "<svg "), "both charts inline")
	assert.NotContains(t, string(page), "<script")
	for _, p := range paths[2:4] {
		svg, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Contains(t, string(svg), "<svg")
	}
}

// TestPostgres runs the experiment on the server PG_DSN names. The
// project's .ci/run starts one with scripts/pg.sh, exports PG_DSN and sets
// SNOWLAB_REQUIRE_PG=1, so there a missing DSN is a failure, not a skip.
func TestPostgres(t *testing.T) {
	dsn := os.Getenv("PG_DSN")
	if dsn == "" {
		if os.Getenv("SNOWLAB_REQUIRE_PG") == "1" {
			t.Fatal("SNOWLAB_REQUIRE_PG=1 but PG_DSN is not set: .ci/run starts PostgreSQL with scripts/pg.sh and exports PG_DSN")
		}
		t.Skip("PG_DSN not set: no PostgreSQL to measure (PG_DSN=$(scripts/pg.sh start) go test ./internal/experiment/btree, then scripts/pg.sh stop \"$PG_DSN\")")
	}
	pg, err := openPostgres(context.Background(), postgresOptions{DSN: dsn})
	require.NoError(t, err)
	run := mustExecute(t, pg)
	e := run.Engines[0]
	checkOrdered(t, e)
	assert.Contains(t, e.Version, "PostgreSQL")
	v4 := key(t, e, uuidV4)
	// On PostgreSQL the random key's index is larger than every ordered
	// one's, its leaves are left well below the appended ones' fill, and
	// inserting into the filled table after a checkpoint logs far more
	// full-page images.
	for _, k := range []keyKind{sequence, snowlabKey, uuidV7, ulidKey} {
		r := key(t, e, k)
		assert.Greater(t, v4.Index.Bytes, r.Index.Bytes, "UUIDv4 index not larger than %s's", k)
		assert.Less(t, v4.Index.LeafFill, r.Index.LeafFill-0.1, "UUIDv4 leaf fill against %s's", k)
		require.NotNil(t, r.WAL)
		assert.Positive(t, r.WAL.Bytes)
		if v4.Tail.WAL.StatsSource == "pg_stat_wal" {
			assert.Greater(t, v4.Tail.WAL.FPI, 5*r.Tail.WAL.FPI, "tail full-page images, UUIDv4 against %s", k)
		}
	}
	assert.Equal(t, "pgstatindex", v4.Index.Source)
	assert.Greater(t, v4.Tail.WAL.Bytes, key(t, e, uuidV7).Tail.WAL.Bytes)
}

func TestParseKinds(t *testing.T) {
	ks, err := parseKinds("uuidv4, snowlab")
	require.NoError(t, err)
	assert.Equal(t, []keyKind{snowlabKey, uuidV4}, ks, "load order, whatever the listed order")
	ks, err = parseKinds("all")
	require.NoError(t, err)
	assert.Equal(t, kinds(), ks)
	_, err = parseKinds("uuidv6")
	assert.Error(t, err)
}

func TestKeysAreWhatTheySay(t *testing.T) {
	for _, k := range kinds() {
		s, _, err := generate(k, 5000)
		require.NoError(t, err)
		require.Equal(t, 5000, s.len())
		less := func(i int) bool {
			if k.wide() {
				return string(s.wide[i-1][:]) < string(s.wide[i][:])
			}
			return s.ints[i-1] < s.ints[i]
		}
		inOrder := 0
		for i := 1; i < s.len(); i++ {
			if less(i) {
				inOrder++
			}
		}
		if k.ordered() {
			assert.Equal(t, s.len()-1, inOrder, "%s keys strictly increase", k)
		} else {
			assert.InDelta(t, 0.5, float64(inOrder)/float64(s.len()-1), 0.05, "%s keys are random", k)
		}
	}
	s, _, _ := generate(sequence, 3)
	assert.Equal(t, []int64{sequenceStart, sequenceStart + 1, sequenceStart + 2}, s.ints)
}

func TestPredictionCells(t *testing.T) {
	assert.Equal(t, "1.84× (+2%)", ratioCell(1.84, 1.8))
	assert.Equal(t, "—", ratioCell(math.NaN(), 1.8))
	assert.Equal(t, "67.1% (-2 pts)", fillCell(0.671, predictedFillRandom))
	assert.Equal(t, "90% (±0 pts)", fillCell(0.90, predictedFillOrdered))
}

// TestExecuteRefusesOptionsOutOfRange: execute refuses, before minting a
// key, options that would not fit in memory, naming the value.
func TestExecuteRefusesOptionsOutOfRange(t *testing.T) {
	for _, o := range []options{
		{Rows: math.MaxInt}, {Rows: -5}, {TailRows: -2}, {BatchRows: maxBatchRows + 1},
		{TxRows: math.MaxInt}, {PayloadBytes: math.MaxInt}, {PayloadBytes: 4},
	} {
		run, err := execute(context.Background(), o)
		assert.Nil(t, run)
		assert.ErrorIs(t, err, errOptions, "%+v", o)
	}
	_, err := execute(context.Background(), options{Rows: math.MaxInt})
	assert.ErrorContains(t, err, "9223372036854775807")
}

// TestReadsCommittedResults: the results committed under results/ read
// back into today's types, every engine named (its fields embedded at the
// top of its object), every key measured: the file format is unchanged.
func TestReadsCommittedResults(t *testing.T) {
	paths, err := filepath.Glob("../../../../results/*-btree.json")
	require.NoError(t, err)
	require.NotEmpty(t, paths, "the committed btree results")
	for _, p := range paths {
		run, err := readResult(p)
		require.NoError(t, err, p)
		require.NotEmpty(t, run.Engines, p)
		for _, e := range run.Engines {
			assert.NotEmpty(t, e.Engine, p)
			assert.NotEmpty(t, e.Version, p)
			for _, k := range e.Keys {
				assert.Positive(t, k.Index.Bytes, "%s: %s %s", p, e.Engine, k.Key)
			}
		}
	}
}
