package btree

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// enginePostgres is the PostgreSQL engine's name.
const enginePostgres = "postgresql"

const pgxModule = "github.com/jackc/pgx/v5"

// postgresOptions configure a PostgreSQL engine.
type postgresOptions struct {
	// DSN is a pgx connection string: postgres://user@host:port/db or
	// "host=... port=...". The role needs CREATE on the database; CHECKPOINT
	// wants a superuser or pg_checkpoint, CREATE EXTENSION pgstattuple a
	// superuser (both are optional: their absence is recorded).
	DSN string
}

type pgEngine struct {
	o        postgresOptions
	conn     *pgx.Conn
	schema   string
	version  string
	num      int // server_version_num
	block    int
	settings map[string]string
	statFn   string // schema-qualified pgstatindex, "" when unavailable
	statErr  string
	ckptErr  string

	// marks taken by Create, after the checkpoint, before the first insert
	lsn0       string
	wal0       walCounters
	walErr     string
	ckpt0      int64
	ckptSource string
}

type walCounters struct{ records, fpi int64 }

// openPostgres connects to the server at o.DSN and makes a schema of its
// own (snowlab_btree_<pid>_<random>) for the tables, dropped on Close.
func openPostgres(ctx context.Context, o postgresOptions) (engine, error) {
	conn, err := pgx.Connect(ctx, o.DSN)
	if err != nil {
		return nil, fmt.Errorf("postgresql: %w", resultdir.RedactError(err))
	}
	e := &pgEngine{o: o, conn: conn, settings: map[string]string{}}
	if err := e.setup(ctx); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("postgresql: %w", err)
	}
	return e, nil
}

func (e *pgEngine) setup(ctx context.Context) error {
	var num string
	if err := e.conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')").
		Scan(&e.version, &num); err != nil {
		return err
	}
	e.num, _ = strconv.Atoi(num)
	var bs string
	if err := e.conn.QueryRow(ctx, "SHOW block_size").Scan(&bs); err == nil {
		e.block, _ = strconv.Atoi(bs)
	}
	for _, s := range []string{"shared_buffers", "max_wal_size", "checkpoint_timeout", "full_page_writes",
		"wal_level", "wal_compression", "synchronous_commit", "fsync"} {
		var v string
		if err := e.conn.QueryRow(ctx, "SELECT current_setting($1)", s).Scan(&v); err == nil {
			e.settings[s] = v
		}
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	e.schema = fmt.Sprintf("snowlab_btree_%d_%s", os.Getpid(), hex.EncodeToString(rnd[:]))
	if _, err := e.conn.Exec(ctx, "CREATE SCHEMA "+e.schema); err != nil {
		return err
	}
	if _, err := e.conn.Exec(ctx, "SET search_path TO "+e.schema+", public"); err != nil {
		return err
	}
	// pgstattuple: use it where it is installed, else install it into our
	// schema (so that dropping the schema removes it again).
	var nsp string
	err := e.conn.QueryRow(ctx, "SELECT n.nspname FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'pgstattuple'").Scan(&nsp)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, cerr := e.conn.Exec(ctx, "CREATE EXTENSION pgstattuple SCHEMA "+e.schema); cerr != nil {
			e.statErr = "CREATE EXTENSION pgstattuple: " + cerr.Error()
		} else {
			nsp = e.schema
		}
	} else if err != nil {
		e.statErr = err.Error()
	}
	if nsp != "" {
		e.statFn = pgx.Identifier{nsp, "pgstatindex"}.Sanitize()
		e.settings["pgstattuple"] = "in schema " + nsp
	} else {
		e.settings["pgstattuple"] = "unavailable: " + e.statErr
	}
	e.settings["schema"] = e.schema
	e.settings["autovacuum"] = "off for the experiment's tables (autovacuum_enabled = false); VACUUM (ANALYZE) after each load"
	return nil
}

func (e *pgEngine) Info() engineInfo {
	settings := make(map[string]string, len(e.settings))
	for k, v := range e.settings {
		settings[k] = v
	}
	if e.ckptErr != "" {
		settings["checkpoint"] = "not run: " + e.ckptErr
	}
	return engineInfo{Engine: enginePostgres, Version: "PostgreSQL " + e.version, Driver: moduleVersion(pgxModule),
		Layout:   "heap table + B-tree primary-key index (entries: key, heap TID); the index is measured",
		PageSize: e.block, Settings: settings}
}

func pgTable(k keyKind) string { return "t_" + string(k) }
func pgIndex(k keyKind) string { return pgTable(k) + "_pkey" }

// Create makes the table with its primary key and autovacuum off, so that
// no background work lands inside a load.
func (e *pgEngine) Create(ctx context.Context, k keyKind) error {
	keyType := "bigint"
	if k.wide() {
		keyType = "uuid"
	}
	ddl := fmt.Sprintf("CREATE TABLE %s (id %s NOT NULL, payload bytea NOT NULL, CONSTRAINT %s PRIMARY KEY (id)) WITH (autovacuum_enabled = false)",
		pgTable(k), keyType, pgIndex(k))
	_, err := e.conn.Exec(ctx, ddl)
	return err
}

// Mark takes a CHECKPOINT, so that every phase starts with no dirty pages
// and pays its own full-page images, and notes the WAL position, the WAL
// counters and the checkpoint count.
func (e *pgEngine) Mark(ctx context.Context) error {
	if _, err := e.conn.Exec(ctx, "CHECKPOINT"); err != nil {
		e.ckptErr = err.Error()
	}
	var err error
	if e.lsn0, err = e.lsn(ctx); err != nil {
		return err
	}
	e.wal0, e.walErr = e.walCounters(ctx)
	e.ckpt0, e.ckptSource = e.checkpoints(ctx)
	return nil
}

func (e *pgEngine) lsn(ctx context.Context) (string, error) {
	var lsn string
	err := e.conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn)
	return lsn, err
}

// walCounters reads pg_stat_wal (PostgreSQL 14+) after making this
// backend flush its pending statistics (pg_stat_force_next_flush, 15+:
// the flush happens when the backend goes idle after the call).
func (e *pgEngine) walCounters(ctx context.Context) (walCounters, string) {
	if e.num < 140000 {
		return walCounters{}, "unavailable: pg_stat_wal needs PostgreSQL 14"
	}
	if e.num >= 150000 {
		if _, err := e.conn.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			return walCounters{}, "unavailable: " + err.Error()
		}
	}
	var c walCounters
	if err := e.conn.QueryRow(ctx, "SELECT wal_records, wal_fpi FROM pg_stat_wal").Scan(&c.records, &c.fpi); err != nil {
		return c, "unavailable: " + err.Error()
	}
	return c, ""
}

// checkpoints is the count of checkpoints started so far.
func (e *pgEngine) checkpoints(ctx context.Context) (int64, string) {
	q := "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter"
	if e.num >= 170000 {
		q = "SELECT num_timed + num_requested FROM pg_stat_checkpointer"
	}
	var n int64
	if err := e.conn.QueryRow(ctx, q).Scan(&n); err != nil {
		return 0, err.Error()
	}
	return n, ""
}

type pgTx struct{ tx pgx.Tx }

func (e *pgEngine) Begin(ctx context.Context) (engineTx, error) {
	tx, err := e.conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &pgTx{tx: tx}, nil
}

// Insert sends the batch as one statement with two array parameters:
// INSERT ... SELECT * FROM unnest($1, $2).
func (t *pgTx) Insert(ctx context.Context, b *batch) error {
	var err error
	if b.Kind.wide() {
		_, err = t.tx.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id, payload) SELECT * FROM unnest($1::uuid[], $2::bytea[])", pgTable(b.Kind)),
			b.Wide, b.Payload)
	} else {
		_, err = t.tx.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id, payload) SELECT * FROM unnest($1::bigint[], $2::bytea[])", pgTable(b.Kind)),
			b.Ints, b.Payload)
	}
	return err
}

func (t *pgTx) Commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t *pgTx) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }

// WAL reads what the server logged since Mark.
func (e *pgEngine) WAL(ctx context.Context) (*walStats, error) {
	w := &walStats{StatsSource: "pg_stat_wal"}
	if err := e.conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint", e.lsn0).Scan(&w.Bytes); err != nil {
		return nil, err
	}
	if c, why := e.walCounters(ctx); why == "" && e.walErr == "" {
		w.Records, w.FPI = c.records-e.wal0.records, c.fpi-e.wal0.fpi
	} else {
		w.StatsSource = why + e.walErr
	}
	if n, why := e.checkpoints(ctx); why == "" && e.ckptSource == "" {
		w.Checkpoints = n - e.ckpt0
	}
	return w, nil
}

// Finish runs VACUUM (ANALYZE) on the table (it sets the visibility map
// and statistics; it does not rebuild or repack a B-tree, REINDEX would),
// then measures the index with pg_relation_size and pgstatindex.
func (e *pgEngine) Finish(ctx context.Context, k keyKind, r *keyResult) error {
	var err error
	if _, err := e.conn.Exec(ctx, "VACUUM (ANALYZE) "+pgTable(k)); err != nil {
		return err
	}
	idx := indexStats{Name: pgIndex(k)}
	if err := e.conn.QueryRow(ctx, "SELECT pg_relation_size($1::regclass), pg_relation_size($2::regclass)",
		e.schema+"."+pgIndex(k), e.schema+"."+pgTable(k)).Scan(&idx.Bytes, &r.TableBytes); err != nil {
		return err
	}
	if e.block > 0 {
		idx.Pages = idx.Bytes / int64(e.block)
	}
	if e.statFn == "" {
		idx.Source = "unavailable: " + e.statErr
		r.Index = idx
		return nil
	}
	var level int
	var density, frag float64
	err = e.conn.QueryRow(ctx, "SELECT tree_level, internal_pages, leaf_pages, avg_leaf_density, leaf_fragmentation FROM "+
		e.statFn+"($1::regclass)", e.schema+"."+pgIndex(k)).Scan(&level, &idx.InternalPages, &idx.LeafPages, &density, &frag)
	if err != nil {
		idx.Source = "unavailable: pgstatindex: " + err.Error()
	} else {
		idx.Source = "pgstatindex"
		idx.Levels = level + 1
		idx.LeafFill = density / 100
		idx.Fragmentation = frag / 100
	}
	r.Index = idx
	return nil
}

func (e *pgEngine) Drop(ctx context.Context, k keyKind) error {
	_, err := e.conn.Exec(ctx, "DROP TABLE "+pgTable(k))
	return err
}

func (e *pgEngine) Close() error {
	ctx := context.Background()
	_, err := e.conn.Exec(ctx, "DROP SCHEMA "+e.schema+" CASCADE")
	return errors.Join(err, e.conn.Close(ctx))
}
