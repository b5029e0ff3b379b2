package btree

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// The SQLite engines' names.
const (
	// engineSQLite stores each key kind the way PostgreSQL does: a rowid
	// table (rows in insert order) and a separate UNIQUE index on the key,
	// whose entries are (key, rowid). That index is what is measured, so
	// its size depends on the key alone and the figures compare across key
	// kinds and with PostgreSQL's primary-key index.
	engineSQLite = "sqlite"
	// engineSQLiteClustered stores each key kind in a WITHOUT ROWID table:
	// the key's B-tree is the table and holds whole rows, as InnoDB's and
	// SQL Server's clustered primary keys do. What is measured is then the
	// table itself, key and payload.
	engineSQLiteClustered = "sqlite-clustered"
)

const sqliteModule = "modernc.org/sqlite"

// sqliteOptions configure an SQLite engine.
type sqliteOptions struct {
	// Clustered makes WITHOUT ROWID tables (engineSQLiteClustered).
	Clustered bool
}

type sqliteEngine struct {
	o        sqliteOptions
	dir      string
	version  string
	settings map[string]string

	db   *sql.DB
	path string
	sqls map[int]string // INSERT statements by row count
}

// openSQLite returns an SQLite engine through modernc.org/sqlite, a pure-Go
// SQLite (no cgo). It checks that the driver is built with the dbstat
// virtual table, which the measurement reads.
func openSQLite(o sqliteOptions) (engine, error) {
	e := &sqliteEngine{o: o, settings: map[string]string{}}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&e.version); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	var dbstat int
	if err := db.QueryRow("SELECT count(*) FROM pragma_compile_options WHERE compile_options = 'ENABLE_DBSTAT_VTAB'").Scan(&dbstat); err != nil {
		return nil, fmt.Errorf("sqlite: reading compile options: %w", err)
	}
	if dbstat == 0 {
		return nil, errors.New("sqlite: the driver is built without SQLITE_ENABLE_DBSTAT_VTAB; the index cannot be measured page by page")
	}
	e.settings["dbstat"] = "ENABLE_DBSTAT_VTAB"
	// The database files, one per key kind, go into a temporary folder,
	// removed on Close.
	e.dir, err = os.MkdirTemp("", "snowlab-btree-")
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (e *sqliteEngine) name() string {
	if e.o.Clustered {
		return engineSQLiteClustered
	}
	return engineSQLite
}

func (e *sqliteEngine) Info() engineInfo {
	layout := "rowid table + UNIQUE index on the key (entries: key, rowid); the index is measured"
	if e.o.Clustered {
		layout = "WITHOUT ROWID table keyed by the key (entries: key, payload); the table's B-tree is measured"
	}
	ps, _ := strconv.Atoi(e.settings["page_size"])
	settings := make(map[string]string, len(e.settings))
	for k, v := range e.settings {
		settings[k] = v
	}
	return engineInfo{Engine: e.name(), Version: "SQLite " + e.version, Driver: moduleVersion(sqliteModule),
		Layout: layout, PageSize: ps, Settings: settings}
}

func sqliteTable(k keyKind) string { return "t_" + string(k) }

// sqliteIndex is the name dbstat knows the key's B-tree by.
func (e *sqliteEngine) sqliteIndex(k keyKind) string {
	if e.o.Clustered {
		return sqliteTable(k)
	}
	return sqliteTable(k) + "_pkey"
}

func (e *sqliteEngine) Create(ctx context.Context, k keyKind) error {
	e.path = filepath.Join(e.dir, fmt.Sprintf("btree-%s-%s.db", e.name(), k))
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(e.path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	db, err := sql.Open("sqlite", "file:"+e.path)
	if err != nil {
		return err
	}
	// One connection: pragmas are per connection, and the load is one
	// writer anyway.
	db.SetMaxOpenConns(1)
	e.db, e.sqls = db, map[int]string{}
	var pragmas []string
	// WAL with synchronous=NORMAL: the usual setting for an application
	// database; a commit is durable at the next checkpoint.
	pragmas = append(pragmas, "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL")
	keyType := "INTEGER"
	if k.wide() {
		keyType = "BLOB"
	}
	t := sqliteTable(k)
	if e.o.Clustered {
		pragmas = append(pragmas, fmt.Sprintf("CREATE TABLE %s (id %s NOT NULL PRIMARY KEY, payload BLOB NOT NULL) WITHOUT ROWID", t, keyType))
	} else {
		// Not "id INTEGER PRIMARY KEY": that makes the key the rowid and
		// leaves no separate index to measure.
		pragmas = append(pragmas,
			fmt.Sprintf("CREATE TABLE %s (id %s NOT NULL, payload BLOB NOT NULL)", t, keyType),
			fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (id)", e.sqliteIndex(k), t))
	}
	for _, p := range pragmas {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	for _, p := range []string{"page_size", "cache_size", "journal_mode", "synchronous"} {
		var v string
		if err := db.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err != nil {
			return fmt.Errorf("PRAGMA %s: %w", p, err)
		}
		e.settings[p] = v
	}
	return nil
}

// insertSQL is the INSERT statement for n rows: VALUES (?,?),(?,?),...
func (e *sqliteEngine) insertSQL(k keyKind, n int) string {
	if s, ok := e.sqls[n]; ok {
		return s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (id, payload) VALUES ", sqliteTable(k))
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?)")
	}
	e.sqls[n] = b.String()
	return e.sqls[n]
}

// sqliteTx prepares its statements on the transaction itself: the
// engine's one connection is the transaction's until it ends.
type sqliteTx struct {
	e     *sqliteEngine
	tx    *sql.Tx
	stmts map[int]*sql.Stmt
	args  []any
}

func (e *sqliteEngine) Begin(ctx context.Context) (engineTx, error) {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &sqliteTx{e: e, tx: tx, stmts: map[int]*sql.Stmt{}}, nil
}

func (t *sqliteTx) Insert(ctx context.Context, b *batch) error {
	n := b.Len()
	s, ok := t.stmts[n]
	if !ok {
		var err error
		if s, err = t.tx.PrepareContext(ctx, t.e.insertSQL(b.Kind, n)); err != nil {
			return err
		}
		t.stmts[n] = s
	}
	t.args = t.args[:0]
	for i := range n {
		if b.Kind.wide() {
			t.args = append(t.args, b.Wide[i][:])
		} else {
			t.args = append(t.args, b.Ints[i])
		}
		t.args = append(t.args, b.Payload[i])
	}
	_, err := s.ExecContext(ctx, t.args...)
	return err
}

func (t *sqliteTx) Commit(context.Context) error   { return t.tx.Commit() }
func (t *sqliteTx) Rollback(context.Context) error { return t.tx.Rollback() }

// Mark checkpoints SQLite's WAL into the database file.
func (e *sqliteEngine) Mark(ctx context.Context) error {
	_, err := e.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// WAL is nil: SQLite does not count what it logs.
func (e *sqliteEngine) WAL(context.Context) (*walStats, error) { return nil, nil }

// Finish checkpoints the WAL into the database file (so the file size is
// the database's) and reads the key's B-tree page by page from dbstat. It
// does not VACUUM: SQLite's VACUUM rebuilds every B-tree from scratch,
// which would repack the random key's half-empty leaves and erase the
// very effect being measured.
func (e *sqliteEngine) Finish(ctx context.Context, k keyKind, r *keyResult) error {
	if _, err := e.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return err
	}
	idx, err := sqliteTree(ctx, e.db, e.sqliteIndex(k))
	if err != nil {
		return err
	}
	r.Index = idx
	if !e.o.Clustered {
		t, err := sqliteTree(ctx, e.db, sqliteTable(k))
		if err != nil {
			return err
		}
		r.TableBytes = t.Bytes
	}
	if st, err := os.Stat(e.path); err == nil {
		r.FileBytes = st.Size()
	}
	return nil
}

// sqliteTree measures one B-tree from dbstat: pages by type, levels, the
// fill of its leaves (bytes in use, cell pointers and headers included,
// over page bytes) and their fragmentation (leaves whose successor in key
// order has a lower page number, over leaves; dbstat lists pages in key
// order, depth first).
func sqliteTree(ctx context.Context, db *sql.DB, name string) (indexStats, error) {
	s := indexStats{Name: name, Source: "dbstat"}
	rows, err := db.QueryContext(ctx,
		"SELECT path, pageno, pagetype, pgsize, unused FROM dbstat WHERE name = ? ORDER BY path", name)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	var leafBytes, leafUsed int64
	prevLeaf := int64(-1)
	var fragments int64
	for rows.Next() {
		var path, ptype string
		var pageno, pgsize, unused int64
		if err := rows.Scan(&path, &pageno, &ptype, &pgsize, &unused); err != nil {
			return s, err
		}
		s.Pages++
		s.Bytes += pgsize
		switch ptype {
		case "leaf":
			s.LeafPages++
			leafBytes += pgsize
			leafUsed += pgsize - unused
			if prevLeaf >= 0 && pageno < prevLeaf {
				fragments++
			}
			prevLeaf = pageno
			s.Levels = max(s.Levels, strings.Count(path, "/"))
		case "internal":
			s.InternalPages++
		}
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	if s.Pages == 0 {
		return s, fmt.Errorf("dbstat has no pages for %s", name)
	}
	if leafBytes > 0 {
		s.LeafFill = float64(leafUsed) / float64(leafBytes)
		s.Fragmentation = float64(fragments) / float64(s.LeafPages)
	}
	return s, nil
}

func (e *sqliteEngine) Drop(context.Context, keyKind) error {
	var errs []error
	if e.db != nil {
		errs = append(errs, e.db.Close())
		e.db = nil
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(e.path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (e *sqliteEngine) Close() error {
	var err error
	if e.db != nil {
		err = e.Drop(context.Background(), "")
	}
	return errors.Join(err, os.RemoveAll(e.dir))
}
