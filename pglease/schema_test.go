package pglease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
)

// TestSchemaOfKeywords: for names New takes that PostgreSQL reserves
// (order, user; bare and schema-qualified), Schema's DDL runs, as a
// migration tool would run it, and a store works on the table it made:
// it finds the table (it does not create it again), claims, reserves and
// releases.
func TestSchemaOfKeywords(t *testing.T) {
	dsn := pgDSN(t)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ns := "snowlab_test_ns_" + hex.EncodeToString(b)
	adminExec(t, dsn, "CREATE SCHEMA "+ns)
	t.Cleanup(func() { dropQuoted(dsn, "SCHEMA", ns+" CASCADE") })
	for _, table := range []string{"order", "user", ns + ".order", ns + ".user"} {
		t.Run(table, func(t *testing.T) {
			both := quoteTable(table) + ", " + quoteTable(table+layoutSuffix)
			dropQuoted(dsn, "TABLE", both)
			t.Cleanup(func() { dropQuoted(dsn, "TABLE", both) })
			adminExec(t, dsn, Schema(table))
			var made bool
			query(t, dsn, "SELECT to_regclass($1) IS NOT NULL", []any{quoteTable(table)}, &made)
			require.True(t, made, "Schema(%q) made no table %s", table, quoteTable(table))

			st := newStore(t, dsn, table, time.Second)
			c, err := st.Acquire(ctxT(t), snowlab.Layout{}, 2, 1023)
			require.NoError(t, err, "Acquire on the table Schema(%q) made", table)
			until := time.Now().Add(time.Minute).UnixNano()
			require.NoError(t, c.Reserve(ctxT(t), until))
			require.Equal(t, until, readRow(t, dsn, st, 1).reservedUntil, "node 1's reserved_until in %s", table)
			require.NoError(t, c.Release(ctxT(t), until))
			var rows int
			query(t, dsn, "SELECT count(*) FROM "+quoteTable(table)+" WHERE holder IS NULL", nil, &rows)
			require.Equal(t, 2, rows, "free rows in %s after the release", table)
		})
	}
}

// dropQuoted drops a table or schema, quoted as the caller gives it.
func dropQuoted(dsn, kind, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, dsn); err == nil {
		_, _ = conn.Exec(ctx, "DROP "+kind+" IF EXISTS "+name)
		_ = conn.Close(ctx)
	}
}
