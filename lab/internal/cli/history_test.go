package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// resultsDir is a results folder with two suite runs (one with its page),
// an experiment's result and a file that is no JSON result.
func resultsDir(t *testing.T) (dir string, stems []string) {
	dir = t.TempDir()
	for i, commit := range []string{"aaaaaaa", "bbbbbbb"} {
		run := &result.Run{Schema: result.SchemaVersion, Commit: commit,
			Started: time.Date(2026, 3, 14, 9+i, 0, 0, 0, time.UTC), Host: result.Host{Hostname: "lab-vm-3", GOMAXPROCS: 2},
			Subjects: []result.SubjectInfo{{Name: "atomicgen/strict", Strict: true, Nodes: 1, CeilingIDs: 4.096e6}},
			Saturate: []result.SaturateResult{{Subject: "atomicgen/strict", Goroutines: 1, IDsPerSec: 4e6}}}
		require.NoError(t, resultdir.WriteJSON(filepath.Join(dir, resultdir.Stem(run)+".json"), run))
		stems = append(stems, resultdir.Stem(run))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, stems[0]+".html"), []byte("<!DOCTYPE html>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x-btree.json"), []byte(`{"schema":1,"experiment":"btree"}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a result"), 0o644))
	return dir, stems
}

func TestHistory(t *testing.T) {
	dir, stems := resultsDir(t)
	code, out, errs := runArgs("history", dir)
	require.Equal(t, exitOK, code, errs)
	index := filepath.Join(dir, "index.html")
	assert.Equal(t, "wrote "+index+" (2 runs)\n", out)
	page, err := os.ReadFile(index)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), `<a href="`+stems[0]+`.html">page</a>`), "links the run's page")
	assert.Equal(t, 1, strings.Count(string(page), ">page</a>"), "only the run with a page")
	assert.True(t, strings.Contains(string(page), "<code>bbbbbbb</code>"))

	// Files named, the page elsewhere: links relative to it.
	other := filepath.Join(t.TempDir(), "site", "h.html")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	code, out, errs = runArgs("history", "-o", other, filepath.Join(dir, stems[0]+".json"), filepath.Join(dir, stems[0]+".json"))
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "(1 runs)", "a file named twice is read once")
	page, err = os.ReadFile(other)
	require.NoError(t, err)
	rel, err := filepath.Rel(filepath.Dir(other), filepath.Join(dir, stems[0]+".html"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), `<a href="`+filepath.ToSlash(rel)+`">`), "link %s", rel)
}

func TestHistoryErrors(t *testing.T) {
	dir, _ := resultsDir(t)
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"schema":`), 0o644))
	// A source that is not there or holds what is no suite result is a
	// usage error: one line naming it, exit 2.
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"a bad file in the folder", []string{dir}, "bad.json"},
		{"a folder that is not there", []string{filepath.Join(dir, "absent")}, "absent: no such file or directory"},
		{"/nonexistent", []string{"/nonexistent"}, "/nonexistent"},
		{"an experiment's file named", []string{"-o", filepath.Join(t.TempDir(), "i.html"), filepath.Join(dir, "x-btree.json")},
			`x-btree.json: the result of an experiment, not of a suite run (experiment "btree")`},
		{"a bad flag", []string{"-bogus"}, "flag provided but not defined: -bogus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runArgs(append([]string{"history"}, tc.args...)...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, errs, tc.says)
			assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
		})
	}
	assert.NoFileExists(t, filepath.Join(dir, "index.html"), "no page from half the results")

	// A page that cannot be written is a failure, not a usage error.
	require.NoError(t, os.Remove(filepath.Join(dir, "bad.json")))
	code, _, errs := runArgs("history", "-o", filepath.Join(dir, "no", "such", "i.html"), dir)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, filepath.Join(dir, "no", "such"))
}

// TestRunRefreshesHistory: a run whose folder holds a result the lab
// cannot read still succeeds, and says the history was not refreshed.
func TestRunRefreshesHistory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"schema":`), 0o644))
	code, _, errs := runArgs(append([]string{"run", "-subjects", "atomicgen/strict", "-workloads", "saturate", "-out", dir}, tiny...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "history page was not refreshed")
	assert.Contains(t, errs, "bad.json")
}

// TestHistoryBaseline: -baseline takes a file or a folder (its newest
// run); a path named that cannot be read is a usage error naming it.
func TestHistoryBaseline(t *testing.T) {
	dir, stems := resultsDir(t)
	base := filepath.Join(t.TempDir(), "baseline")
	require.NoError(t, os.MkdirAll(base, 0o755))
	data, err := os.ReadFile(filepath.Join(dir, stems[0]+".json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(base, stems[0]+".json"), data, 0o644))
	for _, b := range []string{base, filepath.Join(base, stems[0]+".json")} {
		code, out, errs := runArgs("history", "-baseline", b, dir)
		require.Equal(t, exitOK, code, errs)
		assert.Contains(t, out, "(2 runs)")
		page, err := os.ReadFile(filepath.Join(dir, "index.html"))
		require.NoError(t, err)
		assert.Contains(t, string(page), `<section id="gated">`)
	}

	missing := filepath.Join(t.TempDir(), "none")
	code, _, errs := runArgs("history", "-baseline", missing, dir)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "-baseline")
	assert.Contains(t, errs, missing)
	code, _, errs = runArgs("history", "-baseline", t.TempDir(), dir)
	assert.Equal(t, exitUsage, code, "a folder without a run")
	assert.Contains(t, errs, "no .json run")
}
