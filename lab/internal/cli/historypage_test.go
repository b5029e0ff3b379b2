package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// TestHistoryRead: a folder's suite runs are read with their pages, an
// experiment's file in it is passed over, and a file named that is no
// suite run is a *badSource.
func TestHistoryRead(t *testing.T) {
	dir := t.TempDir()
	run := fixture.Run()
	require.NoError(t, resultdir.WriteJSON(filepath.Join(dir, resultdir.Stem(run)+".json"), run))
	require.NoError(t, os.WriteFile(filepath.Join(dir, resultdir.Stem(run)+".html"), []byte("<html>"), 0o644))
	exp := filepath.Join(dir, "z-btree.json")
	require.NoError(t, os.WriteFile(exp, []byte(`{"schema": 2, "experiment": "btree"}`), 0o644))

	runs, err := readHistory([]string{dir}, dir)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.Equal(t, resultdir.Stem(run)+".html", runs[0].Page)
	assert.Equal(t, run.Commit, runs[0].Run.Commit)

	_, err = readHistory([]string{exp}, dir)
	var bad *badSource
	require.ErrorAs(t, err, &bad)
	assert.ErrorIs(t, err, result.ErrExperiment)
	_, err = readHistory([]string{filepath.Join(dir, "missing")}, dir)
	require.ErrorAs(t, err, &bad)
}

// TestChangeLines: loadgen history prints each change point of a gated
// series (a 30% step planted at the seventh of twelve runs) in a line
// naming the run's commit, and says "none" of a flat history.
func TestChangeLines(t *testing.T) {
	runs := func(step float64) []report.HistoryRun {
		var out []report.HistoryRun
		for k := range 12 {
			run := fixture.Sweep(6)
			run.Started = run.Started.Add(time.Duration(k) * time.Hour)
			run.Commit = fmt.Sprintf("c%06d", k)
			slow := 1 + 0.01*float64(k%3)
			if k >= 6 {
				slow *= step
			}
			for i := range run.Saturate {
				if s := &run.Saturate[i]; s.Subject == "atomicgen/monotonic" && s.Goroutines == 1 {
					for j := range s.Samples {
						s.Samples[j] /= slow
					}
					for j := range s.CPUSamples {
						s.CPUSamples[j] /= slow
					}
				}
			}
			out = append(out, report.HistoryRun{Run: run})
		}
		return out
	}
	lines := changeLines(report.NewHistory(runs(1.3), nil))
	require.Len(t, lines, 1, "%q", lines)
	assert.Contains(t, lines[0], "change point: atomicgen/monotonic ns/ID over limit/clock+cas @G=1 on ")
	assert.Contains(t, lines[0], "at #6 (c000006)")
	assert.Contains(t, lines[0], "(+30.")
	lines = changeLines(report.NewHistory(runs(1), nil))
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], "change points: none in the ")
}
