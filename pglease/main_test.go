package pglease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// requirePG makes a missing PostgreSQL fail the tests instead of skipping
// them: .ci/run sets it, having started one with scripts/pg.sh.
const requirePG = "SNOWLAB_REQUIRE_PG"

// needPG skips the test, or fails it under SNOWLAB_REQUIRE_PG=1.
func needPG(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(requirePG) == "1" {
		t.Fatalf("PostgreSQL is required when %s=1: %s", requirePG, why)
	}
	t.Skipf("skipped: %s (to run it: PG_DSN=$(scripts/pg.sh start) make test-pg; %s=1 makes a missing server fail)", why, requirePG)
}

var shared struct {
	once sync.Once
	dsn  string
	err  error
}

// pgDSN is $PG_DSN, checked once to answer: a wrong setting fails the
// tests at once instead of timing each one out.
func pgDSN(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() {
		shared.dsn = strings.TrimSpace(os.Getenv("PG_DSN"))
		if shared.dsn == "" {
			shared.err = errors.New("PG_DSN is not set")
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, shared.dsn)
		if err != nil {
			shared.err = fmt.Errorf("PG_DSN=%s: %w", nodeid.Redact(shared.dsn), err)
			return
		}
		_ = conn.Close(ctx)
	})
	if shared.err != nil {
		if shared.dsn != "" {
			t.Fatalf("PG_DSN is set, so meant to be used: %v", shared.err)
		}
		needPG(t, shared.err.Error())
	}
	return shared.dsn
}

// ctxT is the context of the tests' calls to the store and the database:
// storetest.UntilTestEnds, so that a call never answered fails with its
// own error and one answered late on a loaded machine does not (30 s was
// the bound before).
func ctxT(t *testing.T) context.Context { return storetest.UntilTestEnds(t) }

// freshTable is a table name no other test (or earlier run on a shared
// server) uses; it is dropped when the test ends.
func freshTable(t testing.TB, dsn string) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "snowlab_test_" + hex.EncodeToString(b)
	t.Cleanup(func() { dropTable(dsn, name) })
	return name
}

func dropTable(dsn, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, dsn); err == nil {
		_, _ = conn.Exec(ctx, "DROP TABLE IF EXISTS "+name+", "+name+layoutSuffix)
		_ = conn.Close(ctx)
	}
}

// newStore is a Store on table of dsn's database, on a pool of its own (as
// another process would have), closed when the test ends.
func newStore(t testing.TB, dsn, table string, ttl time.Duration) *Store {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	st, err := New(pool, table, ttl)
	require.NoError(t, err)
	return st
}

// query runs sql on dsn's database and scans its one row into dst.
func query(t *testing.T, dsn string, sql string, args []any, dst ...any) {
	t.Helper()
	conn, err := pgx.Connect(ctxT(t), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	require.NoError(t, conn.QueryRow(ctxT(t), sql, args...).Scan(dst...), sql)
}

// adminExec runs one statement on dsn's database.
func adminExec(t *testing.T, dsn, stmt string) {
	t.Helper()
	c, err := pgx.Connect(ctxT(t), dsn)
	require.NoError(t, err)
	defer c.Close(context.Background())
	_, err = c.Exec(ctxT(t), stmt)
	require.NoError(t, err, stmt)
}

// server is control over the PostgreSQL at PG_DSN, which scripts/pg.sh
// started: the tests crash and restart it. Other packages' tests must not
// share the server meanwhile (make test-pg runs on a server of its own).
type server struct {
	script, dsn string
}

// controlServer returns control over PG_DSN's server, or nil (and why)
// when scripts/pg.sh did not start it.
func controlServer(t testing.TB) (*server, string) {
	t.Helper()
	dsn := pgDSN(t)
	s := &server{script: "../scripts/pg.sh", dsn: dsn}
	if out, err := exec.Command(s.script, "datadir", dsn).CombinedOutput(); err != nil {
		return nil, fmt.Sprintf("PG_DSN is not a server scripts/pg.sh started (pg.sh datadir: %s)", strings.TrimSpace(string(out)))
	}
	return s, ""
}

// needControl is controlServer's, or skips the test (fails it under
// SNOWLAB_REQUIRE_PG=1: .ci/run's server is pg.sh's).
func needControl(t *testing.T) *server {
	t.Helper()
	s, why := controlServer(t)
	if s == nil {
		needPG(t, "this test restarts the server, and "+why)
	}
	return s
}

// crash stops the server at once, as a power cut would (pg_ctl stop -m
// immediate): what it committed is in its WAL.
func (s *server) crash(t *testing.T) { s.run(t, "crash") }

// restart starts it again on the same port and data, recovering from the
// WAL.
func (s *server) restart(t *testing.T) { s.run(t, "restart") }

func (s *server) run(t *testing.T, what string) {
	t.Helper()
	out, err := exec.Command(s.script, what, s.dsn).CombinedOutput()
	if err != nil {
		t.Fatalf("pg.sh %s: %v\n%s", what, err, out)
	}
}
