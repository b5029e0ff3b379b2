package pglease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// asyncDatabase creates a database whose synchronous_commit default is
// off (as a DBA, a role or a managed service may set it) and returns the
// DSN of dsn's server on it; the database is dropped when the test ends.
func asyncDatabase(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		needPG(t, "this test needs PG_DSN as a postgres:// URL, to name another database on its server")
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "snowlab_test_async_" + hex.EncodeToString(b)
	for _, stmt := range []string{
		"CREATE DATABASE " + name,
		"ALTER DATABASE " + name + " SET synchronous_commit = off",
	} {
		adminExec(t, dsn, stmt)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, dsn); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(ctx)
		}
	})
	u.Path = "/" + name
	async := u.String()
	var setting string
	query(t, async, "SHOW synchronous_commit", nil, &setting)
	require.Equal(t, "off", setting, "synchronous_commit of a session on %s, the database's default", name)
	return async
}

// slowWALWriter makes the server's WAL writer wake every 10 s (the most
// wal_writer_delay allows; 200 ms by default) until the test ends. An
// immediate stop loses only the WAL still in the server's buffers, not
// what the WAL writer has written to the OS; at 200 ms it had written the
// asynchronous commits out before pg.sh crash stopped the server in 6 runs
// of 6 without the fix, and the test could not fail. At 10 s they were
// lost in 6 of 6.
func slowWALWriter(t *testing.T, dsn string) {
	t.Helper()
	adminExec(t, dsn, "ALTER SYSTEM SET wal_writer_delay = '10s'")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, dsn); err == nil {
			_, _ = c.Exec(ctx, "ALTER SYSTEM RESET wal_writer_delay")
			_, _ = c.Exec(ctx, "SELECT pg_reload_conf()")
			_ = c.Close(ctx)
		}
	})
	adminExec(t, dsn, "SELECT pg_reload_conf()")
}

// TestWritesCommitSynchronously: on connections whose default
// synchronous_commit is weaker than on (a startup parameter of the pool,
// the default that takes precedence over the server's, the database's
// and the role's), the store's transactions (every write a claim or a
// fence relies on runs in one) commit with synchronous_commit = on; a
// stronger remote_apply is kept. They never wait on a lock for more than
// lock_timeout. The server itself reports both inside the transaction,
// and the pool's connection is back at its own settings after it.
func TestWritesCommitSynchronously(t *testing.T) {
	dsn := pgDSN(t)
	for def, want := range map[string]string{"off": "on", "local": "on", "remote_write": "on", "on": "on", "remote_apply": "remote_apply"} {
		t.Run(def, func(t *testing.T) {
			cfg, err := pgxpool.ParseConfig(dsn)
			require.NoError(t, err)
			cfg.ConnConfig.RuntimeParams["synchronous_commit"] = def
			cfg.MaxConns = 1 // the transaction and the checks around it share a connection
			pool, err := pgxpool.NewWithConfig(ctxT(t), cfg)
			require.NoError(t, err)
			t.Cleanup(pool.Close)
			st, err := New(pool, freshTable(t, dsn), time.Second)
			require.NoError(t, err)

			require.Equal(t, [2]string{def, "0"}, showSettings(t, pool), "the pool's synchronous_commit and lock_timeout")
			tx, err := st.begin(ctxT(t))
			require.NoError(t, err)
			defer tx.Rollback(context.Background())
			require.Equal(t, [2]string{want, "50ms"}, showSettings(t, tx), "synchronous_commit and lock_timeout inside the store's transaction")
			require.NoError(t, tx.Commit(ctxT(t)))
			require.Equal(t, [2]string{def, "0"}, showSettings(t, pool), "the pool's connection after the store's transaction (SET LOCAL ends with it)")
		})
	}
}

// showSettings is synchronous_commit and lock_timeout as q's session has
// them.
func showSettings(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (got [2]string) {
	t.Helper()
	require.NoError(t, q.QueryRow(ctxT(t), "SHOW synchronous_commit").Scan(&got[0]))
	require.NoError(t, q.QueryRow(ctxT(t), "SHOW lock_timeout").Scan(&got[1]))
	return got
}

// TestReservationSurvivesCrash: on a database whose synchronous_commit
// default is off, holder A acquires node id 0 (its first reservation is
// acknowledged), mints in it, and the server crashes at once (pg_ctl stop
// -m immediate: what was not flushed is lost) while A goes silent. After
// the restart, B takes node id 0 with A's reservation as its floor, and
// every ID B mints is above every ID A minted. Both mint on one frozen
// clock, so that A's reservation is all that keeps B's IDs from A's: had
// the server acknowledged A's writes before flushing them, B would start
// from an older floor and repeat A's first IDs.
func TestReservationSurvivesCrash(t *testing.T) {
	srv := needControl(t)
	admin := pgDSN(t)
	dsn := asyncDatabase(t, admin)
	slowWALWriter(t, admin)
	table := freshTable(t, dsn)
	at := time.Now().UnixNano()
	clock := clocksrc.Func(func() int64 { return at })
	// No refresh within the test: A's first reservation is its only one.
	opts := nodeid.Options{Clock: clock, Window: time.Minute, Refresh: 30 * time.Second}
	cfg := snowlab.Config{Policy: snowlab.Monotonic, MaxFloorWait: time.Hour}

	stA := newStore(t, dsn, table, MinTTL)
	f := &freezer{}
	stA.pause = f.pause
	a, err := nodeid.Acquire(ctxT(t), onlyFirst{stA}, opts)
	require.NoError(t, err)
	genA, err := atomicgen.New(a.Config(cfg))
	require.NoError(t, err)
	idsA := make([]snowlab.ID, 5000)
	_, err = genA.NextIDs(idsA)
	require.NoError(t, err)

	f.freeze() // A's process goes down with the server: it writes nothing more
	t.Cleanup(func() {
		f.thaw()
		_ = a.Release(context.Background())
	})
	srv.crash(t)
	srv.restart(t)

	stB := newStore(t, dsn, table, MinTTL)
	var b *nodeid.Lease
	for wait := storetest.UntilTestEnds(t); ; {
		b, err = nodeid.Acquire(ctxT(t), onlyFirst{stB}, opts)
		if err == nil {
			break
		}
		select {
		case <-wait.Done():
			t.Fatalf("B never got node id 0 after the restart: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Cleanup(func() { _ = b.Release(context.Background()) })
	require.Equal(t, time.Unix(0, a.Fence().Until()).UTC(), time.Unix(0, b.Fence().Floor()).UTC(),
		"B's floor, want A's acknowledged reservation (an older one: the crash lost a write the server had acknowledged)")
	genB, err := atomicgen.New(b.Config(cfg))
	require.NoError(t, err)
	idsB := make([]snowlab.ID, 5000)
	_, err = genB.NextIDs(idsB)
	require.NoError(t, err)
	requireUnique(t, idsA, idsB)
	require.Greater(t, slices.Min(idsB), slices.Max(idsA), "B's first ID, want above A's last")
	t.Logf("A reserved node 0 until %v (token %d) and minted %d IDs up to %v; after the crash B (token %d) started from that floor: first ID %v",
		time.Unix(0, a.Fence().Until()).UTC(), a.Token(), len(idsA), idTime(slices.Max(idsA)).UTC(), b.Token(), idTime(slices.Min(idsB)).UTC())
}
