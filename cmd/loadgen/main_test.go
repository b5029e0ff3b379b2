package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tiny keeps a suite to a fraction of a second.
var tiny = []string{"-q", "-n", "2000", "-g", "4", "-repeats", "1", "-sweep", "1,2",
	"-duration", "10ms", "-sat-repeats", "1", "-steady-duration", "20ms", "-rate", "50000"}

func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunWritesResults(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs(append([]string{"run", "-subjects", "atomicgen/strict,mutexgen", "-out", dir}, tiny...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "atomicgen/strict")
	assert.Contains(t, out, "mutexgen/monotonic")
	jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	mds, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	svgs, _ := filepath.Glob(filepath.Join(dir, "*", "*.svg"))
	assert.Len(t, jsons, 1)
	assert.Len(t, mds, 1)
	assert.NotEmpty(t, svgs)

	// compare a run with itself: every row present, nothing "worse".
	code, out, errs = runArgs("compare", jsons[0], jsons[0])
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "atomicgen/strict")
	assert.NotContains(t, out, "worse")
}

func TestCheckAgainstOwnBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the check suite twice")
	}
	dir := t.TempDir()
	code, _, errs := runArgs("check", "-q", "-write-baseline", "-baseline", dir)
	require.Equal(t, exitOK, code, errs)
	code, out, errs := runArgs("check", "-q", "-baseline", dir, "-tolerance", "0.9")
	assert.Equal(t, exitOK, code, "%s\n%s", out, errs)
	assert.Contains(t, out, "atomic/mutex")
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"run", "-subjects", "nosuchlib"},
		{"run", "-workloads", "sprint"},
		{"run", "-sweep", "1,x"},
		{"run", "-n", "0"},
		{"run", "extra"},
		{"compare", "only-one.json"},
		{"compare", "missing-a.json", "missing-b.json"},
		{"check", "-baseline", "/nonexistent/dir"},
	} {
		code, _, errs := runArgs(args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.NotEmpty(t, strings.TrimSpace(errs), "%v says why", args)
	}
}

func TestList(t *testing.T) {
	code, out, _ := runArgs("list")
	require.Equal(t, exitOK, code)
	for _, name := range []string{"mutexgen/strict", "atomicgen/monotonic", "shardedgen/split-sequence/strict", "bwmarrin/snowflake", "google/uuid-v7"} {
		assert.Contains(t, out, name)
	}
}

func TestMain(m *testing.M) {
	os.Args = []string{"loadgen"}
	os.Exit(m.Run())
}

// TestRunUnderLease: -lease mints snowlab's generators under a lock-folder
// lease (GOMAXPROCS node ids, for the node-per-shard subjects) and every
// check still passes.
func TestRunUnderLease(t *testing.T) {
	args := append([]string{"run", "-no-write", "-lease", "dir:" + t.TempDir(),
		"-subjects", "atomicgen,shardedgen/node-per-shard/strict"}, tiny...)
	code, out, errs := runArgs(args...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "shardedgen/node-per-shard/strict")

	code, _, errs = runArgs("run", "-lease", "bogus")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "bogus")
}
