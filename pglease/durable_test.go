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
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
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

// slowWALWriter makes the server's WAL writer flush every 10 s (the most
// wal_writer_delay allows; 200 ms by default) until the test ends: an
// asynchronous commit then stays unflushed for seconds instead of at most
// about 200 ms, so a crash a few tens of milliseconds after it (pg.sh
// crash takes about that) loses it on every run rather than on most.
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

// TestWritesCommitSynchronously: on a database whose default is
// synchronous_commit = off, the store's transactions (every write a claim
// or a fence relies on runs in one) commit with synchronous_commit = on,
// and never wait on a lock (lock_timeout set), as the server itself
// reports inside them.
func TestWritesCommitSynchronously(t *testing.T) {
	dsn := asyncDatabase(t, pgDSN(t))
	st := newStore(t, dsn, freshTable(t, dsn), time.Second)
	tx, err := st.begin(ctxT(t))
	require.NoError(t, err)
	defer tx.Rollback(context.Background())
	var syncCommit, lockTimeout string
	require.NoError(t, tx.QueryRow(ctxT(t), "SHOW synchronous_commit").Scan(&syncCommit))
	require.NoError(t, tx.QueryRow(ctxT(t), "SHOW lock_timeout").Scan(&lockTimeout))
	require.Equal(t, "on", syncCommit, "synchronous_commit inside the store's transaction")
	require.Equal(t, "50ms", lockTimeout, "lock_timeout inside the store's transaction")
	require.NoError(t, tx.Rollback(ctxT(t)))

	// SET LOCAL ends with the transaction: the pooled connection is back
	// at the database's default for whoever uses the pool next.
	conn, err := st.pool.Acquire(ctxT(t))
	require.NoError(t, err)
	defer conn.Release()
	require.NoError(t, conn.QueryRow(ctxT(t), "SHOW synchronous_commit").Scan(&syncCommit))
	require.Equal(t, "off", syncCommit, "synchronous_commit on the pool's connection after the store's transaction")
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
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err = nodeid.Acquire(ctxT(t), onlyFirst{stB}, opts)
		if err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "B did not get node id 0 within 15 s of the restart: %v", err)
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
