package pglease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// row is one node id's row as the table has it.
type row struct {
	generation, reservedUntil int64
	holder                    *string
	expiresIn                 *float64 // seconds left on the database's clock
}

func readRow(t *testing.T, dsn string, st *Store, n int) row {
	t.Helper()
	var r row
	query(t, dsn, st.sqlf(`SELECT generation, reserved_until, holder,
		EXTRACT(EPOCH FROM expires_at - clock_timestamp())::float8 FROM %[1]s WHERE node = $1`), []any{n},
		&r.generation, &r.reservedUntil, &r.holder, &r.expiresIn)
	return r
}

// TestRows checks what a claim writes to its rows (what a successor sees
// of them is the Store suite's): the token as generation, the holder and
// a TTL on the database's clock while held, the reservation, and no holder
// or expiry once released; the table is created by the first Acquire.
func TestRows(t *testing.T) {
	dsn := pgDSN(t)
	const ttl = 3 * time.Second
	st := newStore(t, dsn, freshTable(t, dsn), ttl)
	c, err := st.Acquire(ctxT(t), snowlab.Layout{}, 2, 1023)
	require.NoError(t, err)
	require.Equal(t, [3]int64{0, 2, 1}, [3]int64{int64(c.First()), int64(c.Count()), c.Token()})
	until := time.Now().Add(time.Hour).UnixNano()
	require.NoError(t, c.Reserve(ctxT(t), until))
	for n := range 2 {
		r := readRow(t, dsn, st, n)
		assert.Equal(t, c.Token(), r.generation, "node %d: generation", n)
		assert.Equal(t, until, r.reservedUntil, "node %d: reserved_until", n)
		require.NotNil(t, r.holder, "node %d: holder", n)
		assert.Contains(t, *r.holder, fmt.Sprintf("pid=%d ", os.Getpid()), "node %d: holder", n)
		require.NotNil(t, r.expiresIn, "node %d: expires_at", n)
		assert.Greater(t, *r.expiresIn, 0.0, "node %d: time left", n)
		assert.LessOrEqual(t, *r.expiresIn, ttl.Seconds(), "node %d: time left, want at most the TTL", n)
	}
	final := time.Now().UnixNano()
	require.NoError(t, c.Release(ctxT(t), final))
	for n := range 2 {
		r := readRow(t, dsn, st, n)
		assert.Equal(t, final, r.reservedUntil, "node %d: reserved_until after Release", n)
		assert.Nil(t, r.holder, "node %d: holder after Release", n)
		assert.Nil(t, r.expiresIn, "node %d: expires_at after Release", n)
	}
}

// TestSchemaInREADME: the README's migration is the table the store
// creates.
func TestSchemaInREADME(t *testing.T) {
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	require.Contains(t, string(b), "```sql\n"+Schema("")+"\n```", "README.md's migration, want Schema(\"\")")
}

// TestExistingTableWithoutCreateRight: a role that may not create tables
// (as a migration-managed deployment's) works on the table a migration
// made from Schema; without that table its Acquire fails, saying why.
func TestExistingTableWithoutCreateRight(t *testing.T) {
	dsn := pgDSN(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skipf("PG_DSN is not a URL: %v", err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	role := "snowlab_test_role_" + hex.EncodeToString(b)
	table := freshTable(t, dsn)
	admin, err := pgx.Connect(ctxT(t), dsn)
	require.NoError(t, err)
	defer admin.Close(context.Background())
	for _, stmt := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"REVOKE CREATE ON SCHEMA public FROM " + role, // PUBLIC has no CREATE there since PostgreSQL 15; older servers grant it
		Schema(table),
		"GRANT SELECT, INSERT, UPDATE ON " + table + ", " + table + layoutSuffix + " TO " + role,
	} {
		_, err := admin.Exec(ctxT(t), stmt)
		require.NoError(t, err, stmt)
	}
	t.Cleanup(func() {
		dropTable(dsn, table)
		if c, err := pgx.Connect(context.Background(), dsn); err == nil {
			_, _ = c.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
			_ = c.Close(context.Background())
		}
	})
	u.User = url.User(role)
	st := newStore(t, u.String(), table, time.Second)
	c, err := st.Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
	require.NoError(t, err, "Acquire on a table a migration made")
	require.NoError(t, c.Release(ctxT(t), 0))

	var canCreate bool
	query(t, dsn, "SELECT has_schema_privilege($1, 'public', 'CREATE')", []any{role}, &canCreate)
	if canCreate {
		t.Skip("the role can still create tables in public (PUBLIC has CREATE there on this server)")
	}
	missing := newStore(t, u.String(), freshTable(t, dsn), time.Second)
	_, err = missing.Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "create table")
	assert.Contains(t, err.Error(), "permission denied")
	t.Logf("without the table: %v", err)

	// A table made before its companion TABLE_layout: the role cannot add
	// it, and says what to run.
	old := freshTable(t, dsn)
	before := strings.SplitAfter(Schema(old), ");")[0]
	for _, stmt := range []string{before, "GRANT SELECT, INSERT, UPDATE ON " + old + " TO " + role} {
		_, err := admin.Exec(ctxT(t), stmt)
		require.NoError(t, err, stmt)
	}
	_, err = newStore(t, u.String(), old, time.Second).Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "table "+old+" has no companion "+old+"_layout, and creating it failed (run pglease.Schema's DDL as a role that may)")
	assert.Contains(t, err.Error(), "permission denied")
}

// TestGenerationExhausted: an id whose generation is the largest bigint
// cannot get a next token: it is refused with an error saying so, rather
// than handed out with a token that does not grow.
func TestGenerationExhausted(t *testing.T) {
	dsn := pgDSN(t)
	st := newStore(t, dsn, freshTable(t, dsn), time.Second)
	c, err := st.Acquire(ctxT(t), snowlab.Layout{}, 1, 0)
	require.NoError(t, err)
	require.NoError(t, c.Release(ctxT(t), 0))
	conn, err := pgx.Connect(ctxT(t), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctxT(t), st.sqlf(`UPDATE %[1]s SET generation = $1 WHERE node = 0`), int64(math.MaxInt64))
	require.NoError(t, err)
	_, err = st.Acquire(ctxT(t), snowlab.Layout{}, 1, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "generation")
	assert.NotErrorIs(t, err, snowlab.ErrInvalidNode)
}

// TestHeldIDsSkipped: ids held by another store are passed over, and an
// Acquire of more ids than any free run has is ErrNoFreeNode naming the
// table.
func TestHeldIDsSkipped(t *testing.T) {
	dsn := pgDSN(t)
	table := freshTable(t, dsn)
	a := newStore(t, dsn, table, time.Second)
	b := newStore(t, dsn, table, time.Second)
	ca, err := a.Acquire(ctxT(t), snowlab.Layout{}, 3, 1023)
	require.NoError(t, err)
	defer ca.Release(context.Background(), 0)
	cb, err := b.Acquire(ctxT(t), snowlab.Layout{}, 2, 1023)
	require.NoError(t, err)
	defer cb.Release(context.Background(), 0)
	assert.Equal(t, 3, cb.First(), "another store's claim: after the first's ids")
	_, err = b.Acquire(ctxT(t), snowlab.Layout{}, 6, 9)
	require.ErrorIs(t, err, nodeid.ErrNoFreeNode)
	assert.True(t, strings.Contains(err.Error(), table), "the error names the table: %v", err)
}
