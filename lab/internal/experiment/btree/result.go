package btree

import (
	"math"
	"time"

	"github.com/snowlab/snowlab/lab/result"
)

// schemaVersion is the version of the B-tree result file format (its own,
// apart from result.SchemaVersion). Bump it when a field changes meaning.
const schemaVersion = 1

// experimentName is the value of Result.Experiment, which tells a B-tree result
// file from a suite run's.
const experimentName = "btree"

// runResult is one B-tree experiment: every key kind loaded into every engine.
// The file results/<date>-<host>-<sha>-btree.json holds one.
type runResult struct {
	result.Header
	Config  config         `json:"config"`
	Engines []engineResult `json:"engines"`
}

// config is what every engine was asked to do, the same for each key.
type config struct {
	Rows          int       `json:"rows"`
	TailRows      int       `json:"tail_rows"`
	BatchRows     int       `json:"batch_rows"` // rows per INSERT statement
	TxRows        int       `json:"tx_rows"`    // rows per transaction
	PayloadBytes  int       `json:"payload_bytes"`
	Keys          []keyKind `json:"keys"`
	SnowlabPolicy string    `json:"snowlab_policy"`
	SequenceStart int64     `json:"sequence_start"`
}

// engineInfo says what was measured: the engine, its version, the Go
// driver, which B-tree holds the key, and the settings that shape it.
type engineInfo struct {
	Engine   string            `json:"engine"`  // "sqlite", "sqlite-clustered", "postgresql"
	Version  string            `json:"version"` // the engine's own version string
	Driver   string            `json:"driver"`  // Go module and version
	Layout   string            `json:"layout"`  // the B-tree measured and what it holds
	PageSize int               `json:"page_size"`
	Settings map[string]string `json:"settings,omitempty"`
}

// engineResult is one engine's measurements, one per key kind in load
// order. Error is set when the engine stopped part way.
type engineResult struct {
	engineInfo
	Keys  []keyResult `json:"keys"`
	Error string      `json:"error,omitempty"`
}

// keyResult is one key kind loaded into one engine.
type keyResult struct {
	Key      keyKind `json:"key"`
	KeyBytes int     `json:"key_bytes"`
	Rows     int     `json:"rows"`
	// Generate is how long minting the keys took (before the load, not
	// part of it).
	Generate time.Duration `json:"generate_ns"`
	// Load is the time from the first BEGIN to the last COMMIT.
	Load          time.Duration `json:"load_ns"`
	InsertsPerSec float64       `json:"inserts_per_sec"`
	Index         indexStats    `json:"index"`
	// TableBytes is the table's own storage (heap, or rowid B-tree); 0
	// where the key's B-tree is the table (sqlite-clustered).
	TableBytes int64 `json:"table_bytes,omitempty"`
	// FileBytes is the database file's size (SQLite: one file per key).
	FileBytes int64 `json:"file_bytes,omitempty"`
	// WAL is what the load logged (PostgreSQL).
	WAL *walStats `json:"wal,omitempty"`
	// Tail is the Config.TailRows inserted after a checkpoint into the
	// table the load filled: the steady state of a table that exists.
	Tail *phase `json:"tail,omitempty"`
}

// phase is one timed run of inserts.
type phase struct {
	Rows          int           `json:"rows"`
	Load          time.Duration `json:"load_ns"`
	InsertsPerSec float64       `json:"inserts_per_sec"`
	WAL           *walStats     `json:"wal,omitempty"`
}

// indexStats is the primary-key B-tree after the load.
type indexStats struct {
	Name          string `json:"name"`
	Bytes         int64  `json:"bytes"`
	Pages         int64  `json:"pages"`
	LeafPages     int64  `json:"leaf_pages"`
	InternalPages int64  `json:"internal_pages"`
	// Levels counts the levels of the tree, leaves included.
	Levels int `json:"levels"`
	// LeafFill is the fraction of leaf page space in use (entries and
	// their pointers), 0..1; 0 when Source says it is unavailable.
	LeafFill float64 `json:"leaf_fill"`
	// Fragmentation is the fraction of leaf pages whose next leaf in key
	// order lies earlier in the file (pgstatindex's definition).
	Fragmentation float64 `json:"leaf_fragmentation"`
	// Source is where the page figures came from: "dbstat",
	// "pgstatindex", or "unavailable: <why>" for the fill and
	// fragmentation when neither could be read.
	Source string `json:"source"`
}

// bytesPerRow is the index's size over its rows.
func (k keyResult) bytesPerRow() float64 {
	if k.Rows == 0 {
		return math.NaN()
	}
	return float64(k.Index.Bytes) / float64(k.Rows)
}

// fillKnown reports whether the leaf fill was measured.
func (s indexStats) fillKnown() bool { return s.LeafFill > 0 }

// walStats is the write-ahead log a phase wrote (PostgreSQL).
type walStats struct {
	// Bytes is pg_wal_lsn_diff of the WAL position after the last commit
	// and before the first insert (after a CHECKPOINT): all WAL the server
	// wrote meanwhile.
	Bytes int64 `json:"bytes"`
	// Records and FPI (full-page images) come from pg_stat_wal (PG 14+),
	// whose counters are the whole server's.
	Records     int64  `json:"records,omitempty"`
	FPI         int64  `json:"fpi,omitempty"`
	StatsSource string `json:"stats_source"` // "pg_stat_wal" or "unavailable: <why>"
	// Checkpoints is how many checkpoints started during the phase
	// (pg_stat_bgwriter), not counting the one before it. After each one
	// the first change to every page that existed before it logs a
	// full-page image.
	Checkpoints int64 `json:"checkpoints"`
}

// key returns the engine's result for kind k.
func (e engineResult) key(k keyKind) (keyResult, bool) {
	for _, r := range e.Keys {
		if r.Key == k {
			return r, true
		}
	}
	return keyResult{}, false
}

// ratio is key a's index size over key b's in this engine, NaN when
// either is missing.
func (e engineResult) ratio(a, b keyKind) float64 {
	ra, ok1 := e.key(a)
	rb, ok2 := e.key(b)
	if !ok1 || !ok2 || rb.Index.Bytes <= 0 {
		return math.NaN()
	}
	return float64(ra.Index.Bytes) / float64(rb.Index.Bytes)
}

// What the width and the fill of a key predict: for 10^9 rows on 8 KB pages a
// bigint primary-key index of 22.4 GB, UUIDv4 40.8 GB, UUIDv7 31.3 GB;
// leaves ~90% full under appends (PostgreSQL's B-tree leaf fillfactor)
// and ln 2 ≈ 69% under uniformly random inserts (Yao 1978).
const (
	predictedFillOrdered = 0.90
	predictedFillRandom  = math.Ln2
	// predictedWidth is the 16-byte key's penalty over the 8-byte one.
	predictedWidth = 1.4
	// predictedFillPenalty is 90% / 69%.
	predictedFillPenalty = 1.3
)

// predictedRatio is the documents' index size for kind k over a bigint's:
// 1.8x for UUIDv4 (1.4x width times 1.3x fill), 1.4x for the time-ordered
// 128-bit keys (width only), 1x for the bigints.
func predictedRatio(k keyKind) float64 { return documented(k, 1.8, 1.4, 1) }

// predictedFill is the documents' leaf fill for kind k.
func predictedFill(k keyKind) float64 {
	if k.ordered() {
		return predictedFillOrdered
	}
	return predictedFillRandom
}

// predictedBytesPerRow is the documents' index size per row: their
// billion-row figures (22.4, 31.3 and 40.8 GB) over 10^9 rows. ULID is a
// time-ordered 16-byte key like UUIDv7 and gets its figure.
func predictedBytesPerRow(k keyKind) float64 { return documented(k, 40.8, 31.3, 22.4) }

// documented is the documents' figure for k's class: they give one for
// UUIDv4, one for the time-ordered 16-byte keys (UUIDv7, and ULID, which
// they do not name, with it) and one for the 8-byte keys.
func documented(k keyKind, uuidv4, ordered16, bigint float64) float64 {
	switch k {
	case uuidV4:
		return uuidv4
	case uuidV7, ulidKey:
		return ordered16
	}
	return bigint
}

// publishedPG1M is the commonly quoted PostgreSQL measurement of a
// primary-key index at 1,000,000 rows, in MB as pg_size_pretty prints them (MiB): ~21 MB for
// a bigint key, ~30 MB for UUIDv7, ~38 MB for UUIDv4; 0 where none was
// quoted (ULID, the sequence stands for the bigint).
func publishedPG1M(k keyKind) float64 {
	switch k {
	case sequence, snowlabKey:
		return 21
	case uuidV7:
		return 30
	case uuidV4:
		return 38
	}
	return 0
}
