package main

import (
	"bytes"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
)

// A spec that can never work is one line and exit 2, the DSN's password
// masked; this needs no server.
func TestGenRefusesBadSpecs(t *testing.T) {
	const password = "Sup3r-s3cret"
	for _, spec := range []string{
		"pg:postgres://app:" + password + "@127.0.0.1:70000/app", // no such port
		"pg:",
		"pgx:postgres://app@127.0.0.1/app",
	} {
		var out, errs bytes.Buffer
		code := run([]string{"gen", "-lease", spec, "-n", "1"}, &out, &errs)
		assert.Equal(t, 2, code, "%s: %s", spec, errs.String())
		assert.Empty(t, out.String())
		assert.Equal(t, 1, strings.Count(errs.String(), "\n"), "one line: %s", errs.String())
		assert.NotContains(t, errs.String(), password)
	}
}

// gen -lease pg: mints on the node id the table hands out, and the
// password in the DSN reaches no output.
func TestGenOnPostgres(t *testing.T) {
	dsn := strings.TrimSpace(os.Getenv("PG_DSN"))
	if dsn == "" {
		if os.Getenv("SNOWLAB_REQUIRE_PG") == "1" {
			t.Fatal("SNOWLAB_REQUIRE_PG=1 but PG_DSN is not set: .ci/run starts PostgreSQL with scripts/pg.sh")
		}
		t.Skip("PG_DSN not set: PG_DSN=$(scripts/pg.sh start) make test-pg runs it")
	}
	u, err := url.Parse(dsn)
	require.NoError(t, err, "scripts/pg.sh prints a postgres:// URL")
	q := u.Query()
	q.Set("snowlab_table", "snowid_cmd_test")
	u.RawQuery = q.Encode()
	var out, errs bytes.Buffer
	code := run([]string{"gen", "-lease", "pg:" + u.String(), "-n", "3"}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	lines := strings.Fields(out.String())
	require.Len(t, lines, 3)
	var last snowlab.ID
	for _, l := range lines {
		id, err := snowlab.ParseID(l)
		require.NoError(t, err)
		assert.Greater(t, id, last, "IDs increase")
		last = id
	}
	if p, ok := u.User.Password(); ok {
		assert.NotContains(t, out.String()+errs.String(), p)
	}
}
