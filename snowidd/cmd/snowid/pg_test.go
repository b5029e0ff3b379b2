package main

import (
	"bytes"
	"net"
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
		code := run([]string{"gen", "-lease", spec, "-n", "1"}, &out, &errs, noEnv)
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
	code := run([]string{"gen", "-lease", "pg:" + u.String(), "-n", "3"}, &out, &errs, noEnv)
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

// TestGenHidesPasswords: a marker password in each form pgx takes (and in
// forms it refuses) never reaches gen's stdout or stderr, whether the
// spec does not parse (exit 2) or names a server that is not there
// (exit 1); the user and host do. This needs no server.
func TestGenHidesPasswords(t *testing.T) {
	const marker = "Zq9Mark"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	host, port, _ := strings.Cut(addr, ":")
	for _, tc := range []struct {
		dsn  string
		code int
	}{
		{"postgres://snow:ab?Zq9Mark@" + addr + "/db?sslmode=disable", 1},
		{"postgres://snow:ab#Zq9Mark@" + addr + "/db", 1},
		{"postgres://snow:ab%20Zq9Mark%40@" + addr + "/db?sslmode=disable", 1},
		{"postgres://snow@" + addr + "/db?pass%77ord=Zq9Mark&sslmode=disable", 1},
		{"host=" + host + " port=" + port + " user=snow password='a Zq9Mark' sslmode=disable", 1},
		{`host=` + host + ` port=` + port + ` user=snow password=a\ Zq9Mark sslmode=disable`, 1},
		{`host=` + host + ` port=` + port + ` user=snow password="Zq9Mark" sslmode=disable`, 1},
		{"postgres://snow:ab Zq9Mark@" + addr + "/db", 2},
		{"postgres://snow:ab@Zq9Mark@" + addr + "/db", 2},
		{"postgres://snow:ab/Zq9Mark@" + addr + "/db", 2},
		{`host=` + host + ` user=snow password="a Zq9Mark"`, 2},
		{"host=" + host + " user=snow password='Zq9Mark", 2},
		{"host=" + host + " user=snow password=a Zq9Mark", 2},
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run([]string{"gen", "-lease", "pg:" + tc.dsn, "-n", "1"}, &out, &errs, noEnv)
			assert.Equal(t, tc.code, code, errs.String())
			assert.Empty(t, out.String())
			assert.NotContains(t, errs.String(), marker)
			assert.True(t, strings.HasPrefix(errs.String(), "snowid: gen -lease"), errs.String())
			if tc.code == 1 {
				assert.Contains(t, errs.String(), "snow")
				assert.Contains(t, errs.String(), host)
			}
			t.Log(errs.String())
		})
	}
}

// noEnv is an environment with no variables set.
func noEnv(string) (string, bool) { return "", false }
