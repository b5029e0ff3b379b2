package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBtreeWritesResults(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs("btree", "-q", "-rows", "3000", "-engines", "sqlite", "-keys", "snowlab,uuidv4", "-out", dir)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "UUIDv4 / bigint index size")
	for _, pattern := range []string{"*-btree.json", "*-btree.md", "*-btree.html", filepath.Join("*-btree", "index-size.svg"), filepath.Join("*-btree", "leaf-fill.svg")} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		assert.Len(t, m, 1, pattern)
	}
}

func TestBtreeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"btree", "-rows", "0"},
		{"btree", "-keys", "uuidv6"},
		{"btree", "-engines", "oracle"},
		{"btree", "-engines", "postgresql"}, // no -pg
		{"btree", "-batch", "20000"},
		{"btree", "extra"},
		{"btree", "-rows", "9223372036854775807"},
		{"btree", "-rows", "100000000000000"},
		{"btree", "-payload", "9223372036854775807"},
		{"btree", "-payload", "4"},
		{"btree", "-tail", "-2"},
		{"btree", "-tail", "9223372036854775807"},
		{"btree", "-tx", "0"},
		{"btree", "-tx", "9223372036854775807"},
		{"btree", "-batch", "0"},
	} {
		code, out, errs := runArgs(args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.NotEmpty(t, errs, "%v says why", args)
		assert.NotContains(t, errs, "goroutine 1 [", "%v: no stack trace", args)
		assert.Empty(t, out, "%v", args)
		if len(args) == 3 && strings.Trim(args[2], "-0123456789") == "" {
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(errs), "\n")+1, "%v: one line: %s", args, errs)
			assert.Contains(t, errs, args[1]+" "+args[2], "%v: the error names the flag and value", args)
		}
	}
}

// TestBtreeRedactsDSN: a password given on the command line (-pg, as a
// URL or a key=value string, typed or expanded from an environment
// variable such as PG_DSN) reaches neither the result files nor the
// messages; the user name stays.
func TestBtreeRedactsDSN(t *testing.T) {
	t.Setenv("PG_DSN", "host=127.0.0.1 port=1 user=envuser password='Env S3cretPass' dbname=d")
	for name, dsn := range map[string]string{
		"url":         "postgres://urluser:S3cretPass@127.0.0.1:1/db",
		"environment": os.Getenv("PG_DSN"),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errs := runArgs("btree", "-q", "-rows", "200", "-engines", "sqlite", "-keys", "sequence",
				"-pg", dsn, "-out", dir)
			require.Equal(t, exitOK, code, errs)
			files, err := filepath.Glob(filepath.Join(dir, "*-btree.*"))
			require.NoError(t, err)
			require.Len(t, files, 3, "the JSON, the Markdown and the page")
			for _, f := range files {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				assert.NotContains(t, string(data), "S3cretPass", f)
				assert.Contains(t, string(data), "xxxxx", f)
				assert.Regexp(t, "(urluser|envuser)", string(data), "%s keeps the user", f)
			}
			assert.NotContains(t, out+errs, "S3cretPass")

			// A connection that fails prints the DSN's error redacted.
			code, out, errs = runArgs("btree", "-q", "-rows", "200", "-engines", "postgresql", "-pg", dsn, "-no-write")
			assert.Equal(t, exitFailure, code, errs)
			assert.NotContains(t, out+errs, "S3cretPass")
		})
	}
}
