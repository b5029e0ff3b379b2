package pglease

import (
	"context"
	"errors"
	"fmt"
	"math"
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
	ttl    time.Duration
	secret string // the connection's password, masked in every error

	// pause, when set, is called before every statement with the
	// statement's context: tests stop the store's traffic with it, as if
	// its process were frozen or cut off.
	pause func(ctx context.Context) error

	ensure  sync.Mutex
	ensured bool // the table is known to exist
}

var _ nodeid.Store = (*Store)(nil)

// tableName is a table name the store takes: lowercase, unquoted SQL
// identifiers, optionally schema-qualified.
var tableName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$`)

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
		return nil, fmt.Errorf("pglease: table name %q: want a lowercase SQL name, letters, digits and _, optionally schema.table", table)
	}
	if ttl == 0 {
		ttl = DefaultTTL
	}
	ttl = max(ttl, MinTTL)
	ttl = (ttl + time.Microsecond - 1).Truncate(time.Microsecond)
	return &Store{
		pool: pool, name: table, table: quoteTable(table), ttl: ttl,
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

// exec runs one statement outside a transaction.
func (s *Store) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := s.paused(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return s.pool.Exec(ctx, sql, args...)
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
	return fmt.Sprintf(schema, quoteTable(table))
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
);`

// ensureTable creates the table unless it is known to exist. A table
// that exists is not created again, so a role without the right to create
// one works on a table a migration made.
func (s *Store) ensureTable(ctx context.Context) error {
	s.ensure.Lock()
	defer s.ensure.Unlock()
	if s.ensured {
		return nil
	}
	if err := s.paused(ctx); err != nil {
		return err
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", s.table).Scan(&exists); err != nil {
		return s.errf("pglease: look for table %s: %w", s.name, err)
	}
	if !exists {
		_, err := s.exec(ctx, fmt.Sprintf(schema, s.table))
		var pe *pgconn.PgError
		// Another process creating it at the same moment is as good.
		if err != nil && !(errors.As(err, &pe) && (pe.Code == "42P07" || pe.Code == "23505")) {
			return s.errf("pglease: create table %s: %w", s.name, err)
		}
	}
	s.ensured = true
	return nil
}

// Acquire takes count consecutive free node ids among 0..maxNode, each
// candidate range in one transaction (see the package documentation). When
// every range is held it fails with nodeid.ErrNoFreeNode.
func (s *Store) Acquire(ctx context.Context, count, maxNode int) (nodeid.Claim, error) {
	if count < 1 || maxNode < 0 || count > maxNode+1 {
		return nil, fmt.Errorf("%w: pglease: %d node ids asked for among 0..%d", snowlab.ErrInvalidNode, count, maxNode)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pglease: acquire: %w", err)
	}
	if err := s.ensureTable(ctx); err != nil {
		return nil, err
	}
	held, err := s.heldIDs(ctx, maxNode)
	if err != nil {
		return nil, err
	}
	holder := fmt.Sprintf("pid=%d host=%s", os.Getpid(), hostname())
	for first, tries := 0, 0; first+count-1 <= maxNode; {
		if n := lastHeld(held, first, count); n >= 0 {
			first = n + 1
			continue
		}
		c, busy, err := s.claim(ctx, first, count, holder)
		var pe *pgconn.PgError
		switch {
		case err != nil && errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001") && tries < 100:
			tries++ // a deadlock or serialization failure: the range is contended, try it again
			continue
		case err != nil:
			return nil, err
		case c != nil:
			return c, nil
		}
		for _, n := range busy {
			held[n] = true
		}
	}
	return nil, fmt.Errorf("%w: pglease: no %d consecutive node ids among 0..%d are free in table %s (%d of them are held)",
		nodeid.ErrNoFreeNode, count, maxNode, s.name, len(held))
}

// heldIDs lists the ids held now: only a hint, the claim's transaction
// decides.
func (s *Store) heldIDs(ctx context.Context, maxNode int) (map[int]bool, error) {
	if err := s.paused(ctx); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, s.sqlf(`SELECT node FROM %[1]s
		WHERE node <= $1 AND holder IS NOT NULL AND expires_at > clock_timestamp()`), maxNode)
	if err != nil {
		return nil, s.errf("pglease: list held node ids: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
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

// claim tries to take first..first+count-1 in one transaction. It returns
// the claim, or the ids of the range that are held (and nil), or an error.
func (s *Store) claim(ctx context.Context, first, count int, holder string) (c *claim, busy []int, err error) {
	if err := s.paused(ctx); err != nil {
		return nil, nil, err
	}
	last := first + count - 1
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, nil, s.errf("pglease: claim node ids %d..%d: %w", first, last, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	fail := func(err error) (*claim, []int, error) {
		return nil, nil, s.errf("pglease: claim node ids %d..%d: %w", first, last, err)
	}
	if _, err := tx.Exec(ctx, s.sqlf(`INSERT INTO %[1]s (node) SELECT generate_series($1::integer, $2::integer)
		ON CONFLICT (node) DO NOTHING`), first, last); err != nil {
		return fail(err)
	}
	rows, err := tx.Query(ctx, s.sqlf(`SELECT node, generation, reserved_until,
		holder IS NULL OR expires_at <= clock_timestamp() FROM %[1]s
		WHERE node BETWEEN $1 AND $2 ORDER BY node FOR UPDATE`), first, last)
	if err != nil {
		return fail(err)
	}
	var gen, floor int64
	seen := 0
	for rows.Next() {
		var n int32
		var g, until int64
		var free bool
		if err := rows.Scan(&n, &g, &until, &free); err != nil {
			rows.Close()
			return fail(err)
		}
		seen++
		if !free {
			busy = append(busy, int(n))
		}
		gen, floor = max(gen, g), max(floor, until)
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	switch {
	case len(busy) > 0:
		return nil, busy, nil
	case seen != count:
		return fail(fmt.Errorf("%d rows for %d ids", seen, count))
	case gen == math.MaxInt64:
		// The next token would not fit in the column.
		return fail(fmt.Errorf("generation %d is the last there is; the ids cannot be handed out again", gen))
	}
	token := gen + 1
	if _, err := tx.Exec(ctx, s.sqlf(`UPDATE %[1]s SET generation = $3, holder = $4,
		expires_at = clock_timestamp() + $5 * interval '1 microsecond'
		WHERE node BETWEEN $1 AND $2`), first, last, token, holder, s.ttl.Microseconds()); err != nil {
		return fail(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(err)
	}
	c = &claim{s: s, first: first, count: count, token: token, floor: floor, holder: holder}
	c.st = nodeid.NewClaimState(fmt.Sprintf("pglease: node ids %d..%d (token %d)", first, first+count-1, token), floor,
		func() { c.stopRenewal() })
	c.start()
	return c, nil, nil
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "?"
	}
	return h
}
