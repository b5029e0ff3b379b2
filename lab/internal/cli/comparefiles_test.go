package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// files writes the result files the tests compare into a fresh folder:
// the fixture run twice (with another commit the second time), an
// experiment's result, a suite run that measured nothing, and a file
// that is not JSON.
func files(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	write := func(name string, data []byte) {
		paths[name] = filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(paths[name], data, 0o644))
	}
	for name, commit := range map[string]string{"old": "aaaaaaa", "new": "bbbbbbb"} {
		run := fixture.Run()
		run.Commit = commit
		paths[name] = filepath.Join(dir, name+".json")
		require.NoError(t, resultdir.WriteJSON(paths[name], run))
	}
	write("experiment", []byte(`{"schema":1,"experiment":"btree"}`))
	write("empty", []byte(`{"schema":2,"commit":"ccccccc"}`))
	write("garbage", []byte("not json"))
	paths["missing"] = filepath.Join(dir, "missing.json")
	return paths
}

// TestCompare: two suite runs that measured the same things compare, row
// by row, with each run's commit.
func TestCompare(t *testing.T) {
	p := files(t)
	c, err := compareFiles(p["old"], p["new"])
	require.NoError(t, err)
	assert.Equal(t, "aaaaaaa", c.OldCommit)
	assert.Equal(t, "bbbbbbb", c.NewCommit)
	assert.NotEmpty(t, c.Rows)
	assert.Empty(t, c.OnlyOld)
	assert.Empty(t, c.OnlyNew)
}

// TestCompareUnreadable: a file that cannot be read or is not a result
// is an error naming it, and not one of nothing to compare, whichever
// side it is on.
func TestCompareUnreadable(t *testing.T) {
	p := files(t)
	for _, tt := range []struct {
		name, old, new, bad string
	}{
		{"old missing", p["missing"], p["new"], p["missing"]},
		{"new missing", p["old"], p["missing"], p["missing"]},
		{"old not JSON", p["garbage"], p["new"], p["garbage"]},
		{"new not JSON", p["old"], p["garbage"], p["garbage"]},
		// The file that cannot be read wins over the experiment's.
		{"experiment and not JSON", p["experiment"], p["garbage"], p["garbage"]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compareFiles(tt.old, tt.new)
			require.Error(t, err)
			assert.NotErrorIs(t, err, result.ErrExperiment)
			assert.NotContains(t, err.Error(), "nothing to compare")
			assert.Contains(t, err.Error(), tt.bad)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	_, err := compareFiles(p["missing"], p["new"])
	assert.ErrorIs(t, err, os.ErrNotExist, "the file's error is kept")
}

// TestCompareNothing: an experiment's result on either side, or two
// suite runs that share no metric, are an error in one line saying what
// each file is, wrapping its reason.
func TestCompareNothing(t *testing.T) {
	p := files(t)
	n := len(fixture.Run().Subjects)
	for _, tt := range []struct {
		name, old, new string
		reason         error
		want           []string
	}{
		{"experiment old", p["experiment"], p["new"], result.ErrExperiment,
			[]string{"nothing to compare: ", p["experiment"], `experiment "btree"`, fmt.Sprintf("%s: a suite run (commit bbbbbbb, %d subjects)", p["new"], n)}},
		{"experiment new", p["old"], p["experiment"], result.ErrExperiment,
			[]string{"nothing to compare: ", fmt.Sprintf("%s: a suite run (commit aaaaaaa, %d subjects)", p["old"], n), p["experiment"], `experiment "btree"`}},
		{"two experiments", p["experiment"], p["experiment"], result.ErrExperiment,
			[]string{"nothing to compare: ", p["experiment"], `experiment "btree"`}},
		{"no metric in common", p["old"], p["empty"], compare.ErrNothingInCommon,
			[]string{p["old"] + " vs " + p["empty"], "share no metric", "commit aaaaaaa", "commit ccccccc"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compareFiles(tt.old, tt.new)
			require.ErrorIs(t, err, tt.reason, "it unwraps to its reason")
			msg := err.Error()
			assert.NotContains(t, msg, "\n")
			for _, want := range tt.want {
				assert.Contains(t, msg, want)
			}
			if tt.old != tt.new {
				// Old is said first.
				assert.Less(t, strings.Index(msg, tt.old), strings.Index(msg, tt.new), msg)
			}
		})
	}
}
