package pglease

import (
	"context"
	"errors"
	"net"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// requireNoSecret fails the test when err's message holds any of secrets,
// or more than one line.
func requireNoSecret(t *testing.T, err error, what string, secrets ...string) {
	t.Helper()
	require.Error(t, err, what)
	for _, s := range secrets {
		require.NotContains(t, err.Error(), s, "%s: the error quotes a password", what)
	}
	require.NotContains(t, err.Error(), "\n", what)
}

// TestDSNsThatDoNotParse: a DSN that does not parse is an error of Opener,
// and nodeid.ErrInvalidSpec through nodeid.OpenStore, that never quotes its
// password, however malformed the DSN around it.
func TestDSNsThatDoNotParse(t *testing.T) {
	extra := map[string]nodeid.Opener{"pg": Opener(time.Second)}
	for _, tc := range []struct {
		dsn     string
		secrets []string // what must not be in the error
		want    string   // what must
	}{
		{"postgres://snow:S3cret@127.0.0.1:notaport/db", []string{"S3cret"}, "port"},
		{"postgres://snow:S3c/ret@127.0.0.1/db", []string{"S3c", "ret@"}, "port"},
		{"postgres://snow:S3%40cret@127.0.0.1:99999/db", []string{"S3%40cret", "S3@cret"}, "port"},
		{"postgres://snow:S3cret@[::1/db", []string{"S3cret"}, "parse"},
		{"postgres://snow:S3cret@127.0.0.1/db?sslmode=bogus", []string{"S3cret"}, "sslmode"},
		{"postgres://127.0.0.1/db?password=S3cret&sslmode=bogus", []string{"S3cret"}, "sslmode"},
		{"host=127.0.0.1 port=abc user=snow password=S3cret dbname=db", []string{"S3cret"}, "port"},
		{"host=127.0.0.1 user=snow password='S3 cret' sslmode=bogus", []string{"S3 cret"}, "sslmode"},
		{"host=127.0.0.1 user=snow password=S3cret dbname", []string{"S3cret"}, "parse"},
		{"postgres://snow:S3cret@127.0.0.1/db?snowlab_table=Bad-Name", []string{"S3cret"}, "snowlab_table"},
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			_, err := Opener(time.Second).Open(tc.dsn)
			requireNoSecret(t, err, "Opener", tc.secrets...)
			assert.Contains(t, err.Error(), tc.want)
			_, err = nodeid.OpenStore("pg:"+tc.dsn, extra)
			require.ErrorIs(t, err, nodeid.ErrInvalidSpec)
			requireNoSecret(t, err, "nodeid.OpenStore", tc.secrets...)
			t.Logf("%v", err)
		})
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// TestErrorsHideThePassword: a store whose server is not there, or refuses
// the database, fails Acquire with errors that do not quote the DSN's
// password; so does a lease acquired through nodeid.AcquireSpec.
func TestErrorsHideThePassword(t *testing.T) {
	const secret = "S3cret-pw"
	dsn := "postgres://snow:" + secret + "@" + closedPort(t) + "/db?sslmode=disable"
	st, closeStore, err := Open(dsn, time.Second)
	require.NoError(t, err, "opening does not reach the server")
	defer closeStore()
	_, err = st.Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
	requireNoSecret(t, err, "Acquire with nothing listening", secret)
	assert.NotErrorIs(t, err, nodeid.ErrNoFreeNode)
	t.Logf("nothing listening: %v", err)
	_, err = nodeid.AcquireSpec(ctxT(t), "pg:"+dsn, map[string]nodeid.Opener{"pg": Opener(time.Second)}, nodeid.Options{})
	requireNoSecret(t, err, "nodeid.AcquireSpec", secret)

	// A real server, a database that is not there.
	u, err := url.Parse(pgDSN(t))
	if err != nil || u.Host == "" {
		t.Skipf("PG_DSN is not a URL: %v", err)
	}
	u.User = url.UserPassword("postgres", secret)
	u.Path = "/no_such_database_snowlab"
	st, closeStore, err = Open(u.String(), time.Second)
	require.NoError(t, err)
	defer closeStore()
	_, err = st.Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
	requireNoSecret(t, err, "Acquire on a database that is not there", secret)
	assert.Contains(t, err.Error(), "no_such_database_snowlab")
	t.Logf("no such database: %v", err)
}

// TestUnreachableIsOneLine: a server that is not there is one line of
// error, each address tried once: pgx's message took a line per attempt,
// the same attempt twice under the default sslmode=prefer (three lines
// for one address, printed so by snowid).
func TestUnreachableIsOneLine(t *testing.T) {
	addr := closedPort(t)
	_, port, _ := strings.Cut(addr, ":")
	st, closeStore, err := Open("postgres://snow@localhost:"+port+"/db", time.Second)
	require.NoError(t, err, "opening does not reach the server")
	defer closeStore()
	_, err = st.Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\n")
	assert.Equal(t, 1, strings.Count(err.Error(), addr+" (localhost): dial error"), "each attempt once: %v", err)
	assert.Regexp(t, "^pglease: look for table snowlab_nodeids: failed to connect to `user=snow database=db`: "+
		regexp.QuoteMeta(addr)+` \(localhost\): dial error: dial tcp `+regexp.QuoteMeta(addr)+`: connect: connection refused`, err.Error())
	t.Log(err)

	assert.Equal(t, "failed: a: x; b", oneLine("failed:\n\ta: x\n\ta: x\n\tb\n"))
	assert.Equal(t, "one line", oneLine("one line"))
}

// TestRedacted: the password is masked in a message raw and escaped, and
// errors.Is sees through the masking.
func TestRedacted(t *testing.T) {
	base := errors.New("pgx said: password a b@c is wrong, also a+b%40c")
	err := redacted("a b@c", base)
	assert.Equal(t, "pgx said: password xxxxx is wrong, also xxxxx", err.Error())
	assert.ErrorIs(t, err, base)
	assert.Same(t, base, redacted("", base), "no password: the error as it is")
}

// TestOpenerTable: snowlab_table picks the table, and is not sent to the
// server (which would refuse an unknown parameter).
func TestOpenerTable(t *testing.T) {
	dsn := pgDSN(t)
	table := freshTable(t, dsn)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	st, err := nodeid.OpenStore("pg:"+dsn+sep+TableParam+"="+table, map[string]nodeid.Opener{"pg": Opener(time.Second)})
	require.NoError(t, err)
	c, err := st.Acquire(ctxT(t), snowlab.Layout{}, 2, 1023)
	require.NoError(t, err)
	defer c.Release(context.Background(), 0)
	var n int
	query(t, dsn, "SELECT count(*) FROM "+table+" WHERE holder IS NOT NULL", nil, &n)
	assert.Equal(t, 2, n, "held rows in %s", table)
}

// TestNewDefaults: the table and TTL New settles on, and the table names
// it refuses (the name goes into SQL).
func TestNewDefaults(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://u:pw@"+closedPort(t)+"/db") // connects lazily: never here
	require.NoError(t, err)
	defer pool.Close()
	for _, tc := range []struct {
		table, wantTable string
		ttl, wantTTL     time.Duration
	}{
		{"", `"snowlab_nodeids"`, 0, DefaultTTL},
		{"ids", `"ids"`, time.Millisecond, MinTTL},
		{"app.ids", `"app"."ids"`, 2500*time.Millisecond + 1, 2500*time.Millisecond + time.Microsecond},
	} {
		s, err := New(pool, tc.table, tc.ttl)
		require.NoError(t, err)
		assert.Equal(t, tc.wantTable, s.table, "New(%q, %v): table", tc.table, tc.ttl)
		assert.Equal(t, tc.wantTTL, s.ttl, "New(%q, %v): ttl", tc.table, tc.ttl)
		assert.Equal(t, "pw", s.secret, "the password to mask")
	}
	for _, bad := range []string{"Ids", "a-b", "1ids", "a.b.c", `x"; DROP TABLE y; --`, strings.Repeat("a", 64)} {
		_, err := New(pool, bad, 0)
		assert.Error(t, err, "table %q", bad)
	}
}
