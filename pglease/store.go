package pglease

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

const (
	// DefaultTable is the table New uses for an empty table name.
	DefaultTable = "snowlab_nodeids"
	// DefaultTTL is how long a holder that stops renewing keeps its ids,
	// for a ttl of 0.
	DefaultTTL = 10 * time.Second
	// MinTTL is the shortest TTL granted: a claim renews three times per
	// TTL, and more often than every few hundred milliseconds would spend
	// its life writing. New raises a shorter one.
	MinTTL = time.Second
)

// Store is a nodeid.Store on a PostgreSQL table: see the package
// documentation for the table and how it fences a holder.
type Store struct {
	pool   *pgxpool.Pool
	name   string // the table as given, for messages
	table  string // the table, quoted for SQL
	layout string // its companion TABLE_layout, quoted for SQL
	ttl    time.Duration
	secret string // the connection's password, masked in every error

	// pause, when set, is called before every transaction with the
	// transaction's context: tests stop the store's traffic with it, as if
	// its process were frozen or cut off.
	pause func(ctx context.Context) error

	ensure  sync.Mutex
	ensured bool // the table is known to exist
}

var _ nodeid.Store = (*Store)(nil)

// tableName is a table name the store takes: lowercase, unquoted SQL
// identifiers, optionally schema-qualified; the table's name at most 56
// bytes, so that its companion TABLE_layout fits PostgreSQL's 63.
var tableName = regexp.MustCompile(`^(?:[a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,55}$`)

// New returns a Store that keeps its rows in table (DefaultTable when
// empty; schema.table names another schema) of the database pool connects
// to, and holds each claim for ttl without renewal (DefaultTTL when 0, at
// least MinTTL, rounded up to a microsecond, the database's resolution).
// The pool is used, not owned: close it after the leases acquired through
// the store are released. The table is created on the first Acquire when
// it does not exist.
func New(pool *pgxpool.Pool, table string, ttl time.Duration) (*Store, error) {
	if table == "" {
		table = DefaultTable
	}
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("pglease: table name %q: want a lowercase SQL name, letters, digits and _ (the table's at most 56), optionally schema.table", table)
	}
	if ttl == 0 {
		ttl = DefaultTTL
	}
	ttl = max(ttl, MinTTL)
	ttl = (ttl + time.Microsecond - 1).Truncate(time.Microsecond)
	return &Store{
		pool: pool, name: table, table: quoteTable(table), layout: quoteTable(table + layoutSuffix), ttl: ttl,
		secret: pool.Config().ConnConfig.Password,
	}, nil
}

// Open connects to the database dsn names (a postgres:// URL or a
// key=value string, as pgx takes them) and returns a Store on it (as New)
// and the function that closes the connections. A snowlab_table parameter
// in the DSN names the table (DefaultTable without one); it is not sent to
// the server. Open does not reach the database: a server that is not
// there is the store's Acquire's error. A DSN that does not parse is an
// error that does not quote its password.
func Open(dsn string, ttl time.Duration) (nodeid.Store, func(), error) {
	cfg, table, err := parseDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, nil, redacted(cfg.ConnConfig.Password, fmt.Errorf("pglease: %w", err))
	}
	st, err := New(pool, table, ttl)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return st, pool.Close, nil
}

// txBegin begins every transaction of the store, in one round trip (pgx
// sends a statement without arguments as a simple query, which may hold
// several; SET LOCAL needs the explicit BEGIN and ends with the
// transaction, so the pool's connections keep their own settings):
//
//   - synchronous_commit is at least on, whatever the server's, the
//     database's or the role's default: COMMIT returns only once the
//     transaction's WAL is flushed (and, with synchronous_standby_names
//     set, flushed on the synchronous standbys too). With off, the server
//     acknowledges a commit up to 3 x wal_writer_delay (600 ms by default)
//     before it is on disk, and a crash loses it: a reservation a holder
//     has already minted in. remote_apply, stronger, is kept as it is.
//   - lock_timeout is lockTimeout: a statement that would wait for a lock
//     another session holds fails instead (SQLSTATE 55P03), so a session
//     stalled inside a claim's transaction delays a claim by at most that
//     much before it passes over the id (creating the table lifts it: see
//     ensureTable).
var txBegin = fmt.Sprintf(`BEGIN; SET LOCAL lock_timeout = %d; SELECT set_config('synchronous_commit',
	CASE current_setting('synchronous_commit') WHEN 'remote_apply' THEN 'remote_apply' ELSE 'on' END, true)`,
	lockTimeout.Milliseconds())

// lockTimeout is txBegin's lock_timeout. No claim waits on a row lock
// (SKIP LOCKED); what remains are a never-held id that another claim is
// inserting right now and the table's own lock (DDL). A live claim's
// transaction lasts a few round trips and one WAL flush, a few
// milliseconds on a LAN: 50 ms is ten times that, and a stalled session
// costs each claim that meets it no more. A claim whose commit takes
// longer (a slow disk, a slow synchronous standby) is not taken for a
// stalled one: Acquire looks at the ids it passed over again when it
// finds nothing else free.
const lockTimeout = 50 * time.Millisecond

// lockNotAvailable is the SQLSTATE of a statement that met lock_timeout.
const lockNotAvailable = "55P03"

// lockTimedOut reports whether err is a statement's that met lock_timeout.
func lockTimedOut(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == lockNotAvailable
}

// begin starts a transaction with txBegin's settings.
func (s *Store) begin(ctx context.Context) (pgx.Tx, error) {
	return s.pool.BeginTx(ctx, pgx.TxOptions{BeginQuery: txBegin})
}

// inTx runs fn in a transaction of txBegin's and commits it: a write is
// acknowledged only once it is durable.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if err := s.paused(ctx); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// exec runs one statement in a transaction of its own (inTx).
func (s *Store) exec(ctx context.Context, sql string, args ...any) (tag pgconn.CommandTag, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err = tx.Exec(ctx, sql, args...)
		return err
	})
	return tag, err
}

// paused waits while a test holds the store's traffic (see pause).
func (s *Store) paused(ctx context.Context) error {
	if s.pause == nil {
		return nil
	}
	return s.pause(ctx)
}

// errf formats an error with the connection's password masked.
func (s *Store) errf(format string, args ...any) error {
	return redacted(s.secret, fmt.Errorf(format, args...))
}

// sqlf puts the store's table in a statement: every %[1]s is it.
func (s *Store) sqlf(stmt string) string { return fmt.Sprintf(stmt, s.table) }

// Schema is the DDL of the table the store keeps its rows in (table as
// New takes it), which it runs when the table is missing: for a migration
// tool, or a database role without the right to create tables. The name
// is quoted, as in every statement the store runs, so that a name
// PostgreSQL reserves (order, user) is a table like any other.
func Schema(table string) string {
	if table == "" {
		table = DefaultTable
	}
	return fmt.Sprintf(schema, quoteTable(table), quoteTable(table+layoutSuffix))
}

// quoteTable quotes a table name New takes, "table" or "schema"."table":
// without the quotes, a name that is a keyword (order, user) is a syntax
// error.
func quoteTable(table string) string {
	return pgx.Identifier(strings.Split(table, ".")).Sanitize()
}

const schema = `CREATE TABLE IF NOT EXISTS %s (
    node           integer     PRIMARY KEY CHECK (node >= 0),
    generation     bigint      NOT NULL DEFAULT 0 CHECK (generation >= 0),
    holder         text,
    expires_at     timestamptz,
    reserved_until bigint      NOT NULL DEFAULT 0
);
` + layoutSchema

// layoutSchema is the DDL of the table's companion TABLE_layout, one row
// at most: the layout the table's node ids are held under. A table of
// its own, so that recording it never waits for a lock a claim holds on
// the node ids' rows.
const layoutSchema = `CREATE TABLE IF NOT EXISTS %s (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    layout text    NOT NULL
);`

// layoutSuffix names the companion table: TABLE_layout.
const layoutSuffix = "_layout"

// ensureTable creates the table unless it is known to exist. A table
// that exists is not created again, so a role without the right to create
// one works on a table a migration made. While another session creates
// it, the creation waits for that session's transaction, without
// lock_timeout, and then finds the table there: eight processes starting
// at once on a server whose commits take 100 ms would otherwise have all
// but one fail (the creator holds its catalog rows until its commit is
// flushed). The wait is bounded by ctx alone: no claim can be made before
// the table exists, and a migration stalled before its COMMIT is a table
// that does not exist yet.
func (s *Store) ensureTable(ctx context.Context) error {
	s.ensure.Lock()
	defer s.ensure.Unlock()
	if s.ensured {
		return nil
	}
	exists, err := s.relationExists(ctx, s.table, s.name)
	if err != nil {
		return err
	}
	if !exists {
		if err := s.create(ctx, fmt.Sprintf(schema, s.table, s.layout), s.table); err != nil {
			return s.errf("pglease: create table %s: %w", s.name, err)
		}
	} else if err := s.ensureLayoutTable(ctx); err != nil {
		return err
	}
	s.ensured = true
	return nil
}

// create runs ddl, CREATE ... IF NOT EXISTS statements, in a transaction
// without lock_timeout (see ensureTable). When it fails, it looks for
// table: another process that created it meanwhile makes this creation
// fail on the catalog (42P07, or 23505 or 42710 on the table's row type,
// by the moment it met the other), and the table is there, as good.
func (s *Store) create(ctx context.Context, ddl, table string) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = 0"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, ddl)
		return err
	})
	if err != nil {
		if exists, lerr := s.relationExists(ctx, table, table); lerr == nil && exists {
			return nil
		}
	}
	return err
}

// relationExists reports whether the table named table exists (name is
// how errors call it).
func (s *Store) relationExists(ctx context.Context, table, name string) (bool, error) {
	var exists bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists)
	})
	if err != nil {
		return false, s.errf("pglease: look for table %s: %w", name, err)
	}
	return exists, nil
}

// ensureLayoutTable creates the companion TABLE_layout of a table made
// before it, unless it exists.
func (s *Store) ensureLayoutTable(ctx context.Context) error {
	exists, err := s.relationExists(ctx, s.layout, s.name+layoutSuffix)
	if err != nil || exists {
		return err
	}
	if err := s.create(ctx, fmt.Sprintf(layoutSchema, s.layout), s.layout); err != nil {
		return s.errf("pglease: table %s has no companion %s%s, and creating it failed (run pglease.Schema's DDL as a role that may): %w",
			s.name, s.name, layoutSuffix, err)
	}
	return nil
}

// pinLayout records layout in TABLE_layout when it holds none (an insert
// of its one row: of two first holders, the second's waits for the
// first's commit, however long it takes, and then does nothing), and compares it with the record
// (nodeid's Store contract). Once the layout is recorded, it is one read.
func (s *Store) pinLayout(ctx context.Context, layout snowlab.Layout) error {
	text, err := layout.MarshalText()
	if err != nil {
		return err
	}
	var recorded string
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, "SELECT layout FROM "+s.layout).Scan(&recorded)
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// The first holders of a new table insert at once, and all but
		// one wait for its commit: without lock_timeout, as a table's
		// creation (ensureTable), bounded by ctx alone. With it, seven of
		// eight processes starting on a server whose commits take 100 ms
		// failed here (TestSlowCommits).
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = 0"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO "+s.layout+" (layout) VALUES ($1) ON CONFLICT DO NOTHING", string(text)); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "SELECT layout FROM "+s.layout).Scan(&recorded)
	})
	if err != nil {
		return s.errf("pglease: record the layout in table %s%s: %w", s.name, layoutSuffix, err)
	}
	return nodeid.CheckLayout("table "+s.name+layoutSuffix, recorded, layout)
}

// Acquire takes count consecutive free node ids among 0..maxNode, each
// candidate range in one transaction (see the package documentation). When
// every range is held it fails with nodeid.ErrNoFreeNode.
func (s *Store) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	return s.AcquireAt(ctx, layout, -1, count, maxNode)
}

var _ nodeid.Preferrer = (*Store)(nil)

// AcquireAt is Acquire trying the range first..first+count-1 before any
// other (nodeid.Preferrer): when it is not free, any free range is taken,
// as Acquire would. A first of -1, or one whose range does not fit in
// 0..maxNode, prefers none.
func (s *Store) AcquireAt(ctx context.Context, layout snowlab.Layout, first, count, maxNode int) (nodeid.Claim, error) {
	if count < 1 || maxNode < 0 || count > maxNode+1 {
		return nil, fmt.Errorf("%w: pglease: %d node ids asked for among 0..%d", snowlab.ErrInvalidNode, count, maxNode)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pglease: acquire: %w", err)
	}
	if err := s.ensureTable(ctx); err != nil {
		return nil, err
	}
	if err := s.pinLayout(ctx, layout); err != nil {
		return nil, err
	}
	if first < 0 || first+count-1 > maxNode {
		first = -1
	}
	holder := fmt.Sprintf("pid=%d host=%s", os.Getpid(), hostname())
	for wait := firstSettle; ; wait = min(2*wait, maxSettle) {
		held, err := s.heldIDs(ctx, maxNode)
		if err != nil {
			return nil, err
		}
		c, contended, err := s.pass(ctx, held, first, count, maxNode, holder)
		switch {
		case err != nil || c != nil:
			return c, err
		case contended == 0:
			return nil, fmt.Errorf("%w: pglease: no %d consecutive node ids among 0..%d are free in table %s (%d of them are held)",
				nodeid.ErrNoFreeNode, count, maxNode, s.name, len(held))
		}
		// Every range had an id that is neither held nor free: another
		// session is claiming it and has not committed. Wait for it to
		// finish, and look again.
		if err := sleep(ctx, wait/2+rand.N(wait/2+1)); err != nil {
			return nil, s.errf("pglease: no %d consecutive node ids among 0..%d are free in table %s, and %d ranges are being claimed by other sessions that have not finished: %w",
				count, maxNode, s.name, contended, err)
		}
	}
}

// firstSettle and maxSettle bound the waits of an Acquire that found no
// free range but some ranges being claimed by other sessions: it looks
// again after firstSettle, then after twice as long each time, up to
// maxSettle (each with jitter, so that claimers that met do not meet
// again in step). A claim's transaction lasts a few round trips and a WAL
// flush: milliseconds on a LAN, 100 ms on a server whose disk or
// synchronous standby is slow. A session stalled inside its claim keeps
// the ids it locked until it ends: Acquire waits for it only when no
// other range is free, and for as long as ctx lets it.
const (
	firstSettle = 5 * time.Millisecond
	maxSettle   = 200 * time.Millisecond
)

// pass tries the preferred range (first, unless -1), then every range
// held does not rule out, lowest first, until one is claimed. It returns
// the claim, or nil and how many ranges it passed over because another
// session was claiming one of their ids (locked, or being inserted) rather
// than holding it: when none was, no range is free.
func (s *Store) pass(ctx context.Context, held map[int]bool, first, count, maxNode int, holder string) (*claim, int, error) {
	contended, tries := 0, 0
	try := func(at int) (*claim, []int, error) {
		for {
			c, busy, inFlight, err := s.claim(ctx, at, count, holder)
			var pe *pgconn.PgError
			if err != nil && errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001") && tries < 100 {
				tries++ // a deadlock or serialization failure: the range is contended, try it again
				continue
			}
			if inFlight {
				contended++
			}
			return c, busy, err
		}
	}
	if first >= 0 && lastHeld(held, first, count) < 0 {
		c, busy, err := try(first)
		if err != nil || c != nil {
			return c, 0, err
		}
		for _, n := range busy {
			held[n] = true
		}
	}
	for at := 0; at+count-1 <= maxNode; {
		if n := lastHeld(held, at, count); n >= 0 {
			at = n + 1
			continue
		}
		c, busy, err := try(at)
		if err != nil || c != nil {
			return c, 0, err
		}
		for _, n := range busy {
			held[n] = true
		}
	}
	return nil, contended, nil
}

// sleep waits d or until ctx ends, and then says which.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// heldIDs lists the ids held now: only a hint, the claim's transaction
// decides.
func (s *Store) heldIDs(ctx context.Context, maxNode int) (map[int]bool, error) {
	var ids []int32
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, s.sqlf(`SELECT node FROM %[1]s
			WHERE node <= $1 AND holder IS NOT NULL AND expires_at > clock_timestamp()`), maxNode)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int32])
		return err
	})
	if err != nil {
		return nil, s.errf("pglease: list held node ids: %w", err)
	}
	held := make(map[int]bool, len(ids))
	for _, n := range ids {
		held[int(n)] = true
	}
	return held, nil
}

// lastHeld returns the last held id in first..first+count-1 (the next
// candidate range starts after it), or -1 when none is held.
func lastHeld(held map[int]bool, first, count int) int {
	for n := first + count - 1; n >= first; n-- {
		if held[n] {
			return n
		}
	}
	return -1
}

// The claim's statements, on parameters $1, $2: the range's first and
// last id.
const (
	// insertRows adds the range's rows that no committed transaction has
	// made. A row that exists is left out before the insert is tried, so
	// the insert meets another session only when that one is adding the
	// same never-held id at the same moment (then lock_timeout ends the
	// wait).
	insertRows = `INSERT INTO %[1]s (node) SELECT n FROM generate_series($1::integer, $2::integer) AS n
		WHERE NOT EXISTS (SELECT 1 FROM %[1]s WHERE node = n) ON CONFLICT (node) DO NOTHING`
	// lockFree locks the range's free rows, passing over those another
	// session has locked (SKIP LOCKED) instead of waiting for it. Held rows
	// are not locked at all, so a claim never delays a holder's writes.
	// Under READ COMMITTED a row changed by a transaction that committed
	// meanwhile is checked again as it now is (PostgreSQL re-evaluates the
	// WHERE of a row it locks).
	lockFree = `SELECT node, generation, reserved_until FROM %[1]s
		WHERE node BETWEEN $1 AND $2 AND (holder IS NULL OR expires_at <= clock_timestamp())
		ORDER BY node FOR UPDATE SKIP LOCKED`
)

// claim tries to take first..first+count-1 in one transaction. It returns
// the claim, or nil and the ids of the range it cannot have now (busy:
// held, or locked by another session; every row of the range must be free
// and locked by this transaction, or none is taken), with inFlight set
// when some of them are not held but being claimed by another session
// that has not committed (locked, or inserted: which one, lock_timeout's
// error does not say, so the range's first id stands for it); or an
// error.
func (s *Store) claim(ctx context.Context, first, count int, holder string) (c *claim, busy []int, inFlight bool, err error) {
	last := first + count - 1
	var token, floor int64
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, s.sqlf(insertRows), first, last); err != nil {
			return err
		}
		gen, lfloor, lbusy, err := s.lockRange(ctx, tx, first, last)
		floor, busy = lfloor, lbusy
		switch {
		case err != nil:
			return err
		case len(busy) > 0:
			// The transaction commits the rows it inserted, nothing else.
			inFlight, err = s.beingClaimed(ctx, tx, busy)
			return err
		case gen == math.MaxInt64:
			// The next token would not fit in the column.
			return fmt.Errorf("generation %d is the last there is; the ids cannot be handed out again", gen)
		}
		token = gen + 1
		_, err = tx.Exec(ctx, s.sqlf(`UPDATE %[1]s SET generation = $3, holder = $4,
			expires_at = clock_timestamp() + $5 * interval '1 microsecond'
			WHERE node BETWEEN $1 AND $2`), first, last, token, holder, s.ttl.Microseconds())
		return err
	})
	var pe *pgconn.PgError
	switch {
	case err != nil && errors.As(err, &pe) && pe.Code == lockNotAvailable:
		// Another session is inserting one of the range's rows and has
		// not committed: which one, the error does not say. The range
		// cannot be had now; the next one starts an id further.
		return nil, []int{first}, true, nil
	case err != nil:
		return nil, nil, false, s.errf("pglease: claim node ids %d..%d: %w", first, last, err)
	case len(busy) > 0:
		return nil, busy, inFlight, nil
	}
	c = &claim{s: s, first: first, count: count, token: token, floor: floor, holder: holder}
	c.st = nodeid.NewClaimState(fmt.Sprintf("pglease: node ids %d..%d (token %d)", first, last, token), floor,
		func() { c.stopRenewal() })
	c.start()
	return c, nil, false, nil
}

// beingClaimed reports whether any of the ids lockFree passed over is
// free by the rows as committed now: then another session has it locked,
// a claim under way (or stalled), not a holder.
func (s *Store) beingClaimed(ctx context.Context, tx pgx.Tx, ids []int) (bool, error) {
	var free bool
	err := tx.QueryRow(ctx, s.sqlf(`SELECT EXISTS (SELECT 1 FROM %[1]s
		WHERE node = ANY($1) AND (holder IS NULL OR expires_at <= clock_timestamp()))`), ids).Scan(&free)
	return free, err
}

// lockRange locks the free rows of first..last (lockFree) and returns the
// highest generation and reserved_until over them, and the ids of the
// range it did not lock: held, or locked by another session.
func (s *Store) lockRange(ctx context.Context, tx pgx.Tx, first, last int) (gen, floor int64, busy []int, err error) {
	rows, err := tx.Query(ctx, s.sqlf(lockFree), first, last)
	if err != nil {
		return 0, 0, nil, err
	}
	next := first // the next id a row is expected for
	for rows.Next() {
		var n int32
		var g, until int64
		if err := rows.Scan(&n, &g, &until); err != nil {
			rows.Close()
			return 0, 0, nil, err
		}
		for ; next < int(n); next++ {
			busy = append(busy, next)
		}
		next = int(n) + 1
		gen, floor = max(gen, g), max(floor, until)
	}
	if err := rows.Err(); err != nil {
		return 0, 0, nil, err
	}
	for ; next <= last; next++ {
		busy = append(busy, next)
	}
	return gen, floor, busy, nil
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "?"
	}
	return h
}
