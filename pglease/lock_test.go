package pglease

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// stalledTx is a session frozen inside a transaction (a claimer stopped
// by a GC pause, a VM suspend, SIGSTOP): it runs stmt and then holds the
// transaction, and its locks, open until the test ends.
func stalledTx(t *testing.T, dsn string, stmt string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(ctxT(t), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	tx, err := conn.Begin(ctxT(t))
	require.NoError(t, err)
	_, err = tx.Exec(ctxT(t), stmt, args...)
	require.NoError(t, err, stmt)
}

// makeRows makes the rows of ids 0..count-1 exist, free, as a holder
// that took and released them leaves them.
func makeRows(t *testing.T, st *Store, count int) {
	t.Helper()
	c, err := st.Acquire(ctxT(t), snowlab.Layout{}, count, 1023)
	require.NoError(t, err)
	require.NoError(t, c.Release(ctxT(t), 0))
}

// acquireSoon is st.Acquire(count) under a 2 s deadline (a regression
// that waits for the stalled session fails instead of hanging), and
// requires it to succeed within a second.
func acquireSoon(t *testing.T, st *Store, count int) nodeid.Claim {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), 2*time.Second)
	defer cancel()
	start := time.Now()
	c, err := st.Acquire(ctx, snowlab.Layout{}, count, 1023)
	took := time.Since(start)
	require.NoError(t, err, "Acquire(%d) beside a stalled transaction, after %v", count, took)
	t.Cleanup(func() { _ = c.Release(context.Background(), 0) })
	require.Less(t, took, time.Second, "Acquire(%d) beside a stalled transaction", count)
	t.Logf("Acquire(%d) took node ids %d..%d in %v", count, c.First(), c.First()+c.Count()-1, took.Round(time.Millisecond))
	return c
}

// TestStalledClaimerBlocksNobody: a session frozen inside its claim's
// transaction, holding the rows it locked, costs the other claims at most
// the ids it locked: they take others at once, and a range (count > 1) is
// never taken around a locked id, only past it. Four stalls: rows locked
// FOR UPDATE (as a claim locks them); a row updated but not committed (a
// claim frozen before its COMMIT); never-held ids inserted but not
// committed (a claim of a fresh table), which only lock_timeout ends; and
// the free rows of a range locked as this store's claim locks them, which
// must not hold up the holder of the range's other ids. A session
// creating the table in a transaction it does not end makes Acquire fail
// at once (lock_timeout), not wait.
func TestStalledClaimerBlocksNobody(t *testing.T) {
	dsn := pgDSN(t)
	t.Run("row locked", func(t *testing.T) {
		st := newStore(t, dsn, freshTable(t, dsn), time.Second)
		makeRows(t, st, 4)
		stalledTx(t, dsn, st.sqlf(`SELECT * FROM %[1]s WHERE node IN (0, 2) FOR UPDATE`))
		require.Equal(t, 1, acquireSoon(t, st, 1).First(), "first free id past the locked node 0")
		c := acquireSoon(t, st, 2)
		require.Equal(t, 3, c.First(), "a range of 2 past the locked node 2, want 3..4, never around it")
	})
	t.Run("row updated", func(t *testing.T) {
		st := newStore(t, dsn, freshTable(t, dsn), time.Second)
		makeRows(t, st, 2)
		stalledTx(t, dsn, st.sqlf(`UPDATE %[1]s SET holder = 'frozen', generation = generation + 1,
			expires_at = clock_timestamp() + interval '1 hour' WHERE node = 0`))
		require.Equal(t, 1, acquireSoon(t, st, 1).First(), "first free id past the updated node 0")
	})
	t.Run("rows inserted", func(t *testing.T) {
		st := newStore(t, dsn, freshTable(t, dsn), time.Second)
		require.NoError(t, st.ensureTable(ctxT(t)))
		stalledTx(t, dsn, st.sqlf(`INSERT INTO %[1]s (node) SELECT generate_series(0, 2)`))
		require.Equal(t, 3, acquireSoon(t, st, 1).First(), "first id past the three being inserted")
	})
	t.Run("table being created", func(t *testing.T) {
		table := freshTable(t, dsn)
		st := newStore(t, dsn, table, time.Second)
		stalledTx(t, dsn, Schema(table)) // a migration frozen before its COMMIT
		ctx, cancel := context.WithTimeout(ctxT(t), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, err := st.Acquire(ctx, snowlab.Layout{}, 1, 1023)
		took := time.Since(start)
		var pe *pgconn.PgError
		require.ErrorAs(t, err, &pe, "Acquire while another session creates the table, after %v", took)
		require.Equal(t, lockNotAvailable, pe.Code, "Acquire while another session creates the table: %v", err)
		require.Less(t, took, time.Second, "Acquire while another session creates the table")
		t.Logf("Acquire while another session creates the table, after %v: %v", took.Round(time.Millisecond), err)
	})
	t.Run("holder not held up", func(t *testing.T) {
		st := newStore(t, dsn, freshTable(t, dsn), time.Second)
		makeRows(t, st, 4)
		holder := acquireSoon(t, st, 1)
		// A claim of 0..3 frozen right after locking the range's rows.
		stalledTx(t, dsn, st.sqlf(lockFree), 0, 3)
		ctx, cancel := context.WithTimeout(ctxT(t), 2*time.Second)
		defer cancel()
		start := time.Now()
		require.NoError(t, holder.Reserve(ctx, time.Now().Add(time.Minute).UnixNano()), "the holder of node 0's Reserve beside the stalled claim")
		require.Less(t, time.Since(start), time.Second, "the holder of node 0's Reserve beside the stalled claim")
		require.Equal(t, 4, acquireSoon(t, st, 1).First(), "node 0 held, 1..3 locked by the stalled claim")
	})
}
