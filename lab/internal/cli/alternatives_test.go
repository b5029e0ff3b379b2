package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
)

func TestAlternativesUsageErrors(t *testing.T) {
	pg := []string{"alternatives", "-pg", "postgres://u@127.0.0.1:1/db"}
	bin := filepath.Join(t.TempDir(), "snowidd")
	require.NoError(t, os.WriteFile(bin, nil, 0o755))
	for _, extra := range [][]string{
		{"-clients", "0"},
		{"-clients", "1,1"},
		{"-clients", "1,x"},
		{"-schemes", "uuid"},
		{"-schemes", "block/0"},
		{"-duration", "0s"},
		{"-duration", "2h"},
		{"-demand", "0"},
		{"-demand", "1e12"},
		{"-max-ids", "0"},
		{"-skew", "-1ms"},
		{"-crash-clients", "0"},
		{"-crash-after", "0s"},
		{"-fsync-seconds", "0"},
		{"-pg-control", "/no/such/script"},
		{"-snowidd", "grpc://127.0.0.1:1"},
		{"-snowidd", "127.0.0.1:8080"},
		{"-snowidd-bin", "/no/such/snowidd"},
		{"-snowidd-bin", t.TempDir()},
		{"-snowidd", "http://127.0.0.1:1", "-snowidd-bin", bin},
		{"-schemes", "snowidd/0"},
		{"extra"},
	} {
		args := append(append([]string{}, pg...), extra...)
		code, out, errs := runArgs(args...)
		assert.Equal(t, exitUsage, code, "%v", extra)
		assert.Empty(t, out, "%v", extra)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(errs), "\n")+1, "%v: one line: %s", extra, errs)
		assert.Contains(t, errs, extra[0], "%v: the error names the flag or argument", extra)
		assert.NotContains(t, errs, "goroutine 1 [", "%v: no stack trace", extra)
	}
	code, _, errs := runArgs("alternatives")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "-pg DSN is required")
}

// TestAlternativesRedactsDSN: a server that cannot be reached fails with
// one message, and the password in the DSN reaches neither it nor a file.
func TestAlternativesRedactsDSN(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs("alternatives", "-q", "-pg", "postgres://me:S3cretPass@127.0.0.1:1/db?connect_timeout=2", "-out", dir)
	assert.Equal(t, exitFailure, code, errs)
	assert.NotContains(t, out+errs, "S3cretPass")
	assert.Contains(t, errs, "loadgen alternatives:")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.Empty(t, files, "no result without a run")
}

// TestAlternativesWritesResults runs a tiny experiment on PG_DSN's server
// when there is one.
func TestAlternativesWritesResults(t *testing.T) {
	dsn := os.Getenv("PG_DSN")
	if dsn == "" {
		t.Skip("PG_DSN not set (the experiment itself is tested in internal/experiment/alternatives, which SNOWLAB_REQUIRE_PG makes required)")
	}
	dir := t.TempDir()
	args := []string{"alternatives", "-q", "-pg", dsn, "-clients", "2", "-duration", "100ms",
		"-schemes", "ticket,block/24,snowlab,snowidd,snowidd/100", "-fsync-seconds", "-1", "-out", dir}
	// The snowidd schemes run on a replica started from the binary
	// replicatest finds (CI builds one and requires it), and are skipped
	// with the reason printed without one.
	bin, _ := fixture.ReplicaBinary()
	if bin != "" {
		args = append(args, "-snowidd-bin", bin)
	} else if os.Getenv("SNOWLAB_REQUIRE_SNOWIDD") == "1" {
		t.Fatal("SNOWLAB_REQUIRE_SNOWIDD=1 but no snowidd binary (make snowidd)")
	}
	code, out, errs := runArgs(args...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "One row does about 4,000 IDs/s")
	if bin != "" {
		assert.Regexp(t, `(?m)^snowidd/100 +2 `, out, "the batched service scheme ran")
		assert.NotContains(t, out, "snowidd skipped")
	} else {
		assert.Contains(t, out, "snowidd skipped: no snowidd replica")
	}
	for _, pattern := range []string{"*-alternatives.json", "*-alternatives.md", "*-alternatives.html", filepath.Join("*-alternatives", "ids-per-sec.svg"),
		filepath.Join("*-alternatives", "inversion-window.svg")} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		assert.Len(t, m, 1, pattern)
	}
}
