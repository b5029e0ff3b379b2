package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/resultdir"
	"github.com/snowlab/snowlab/lab/host"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/workload"
)

// schema1Run writes into results/local/ a run as an older lab wrote it:
// schema 1, its latency histogram an array of bucket counts. It returns
// the path and the latency as recorded.
func schema1Run(t *testing.T, extra string) (string, result.Latency) {
	t.Helper()
	r := workload.NewRecorder()
	for i := int64(1); i <= 20_000; i++ {
		r.Record(i * 7919 % 5_000_000)
	}
	lat := workload.Merge([]*workload.Recorder{r})
	h, err := workload.Histogram(lat.Hist)
	require.NoError(t, err)
	snap := h.Export()
	counts := snap.Counts
	for len(counts) > 0 && counts[len(counts)-1] == 0 {
		counts = counts[:len(counts)-1]
	}
	old := lat
	old.Hist = &result.Hist{LowestTrackableValue: snap.LowestTrackableValue, HighestTrackableValue: snap.HighestTrackableValue,
		SignificantFigures: snap.SignificantFigures, Counts: counts}
	run := &result.Run{Schema: 1, Commit: "ddddddd", Started: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC),
		Host:     host.Fingerprint{Hostname: "lab-vm-3", GOMAXPROCS: 2},
		Saturate: []result.SaturateResult{{Subject: "atomicgen/strict", Goroutines: 1, IDsPerSec: 4e6, Latency: old}},
		Steady:   []result.SteadyResult{{Subject: "atomicgen/strict", TargetRate: 1e5, Latency: old}}}
	path := filepath.Join(resultdir.DefaultOut(), run.Stem()+".json")
	require.NoError(t, os.MkdirAll(resultdir.DefaultOut(), 0o755))
	require.NoError(t, result.WriteJSON(path, run))
	if extra != "" {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, bytes.Replace(data, []byte("{"), []byte("{"+extra+","), 1), 0o644))
	}
	return path, lat
}

// TestPublishCompacts: a schema-1 run is published with its histograms
// compressed, a fraction of its size, and reads back the same: host,
// summaries and every bucket.
func TestPublishCompacts(t *testing.T) {
	t.Chdir(t.TempDir())
	path, lat := schema1Run(t, "")
	code, out, errs := runArgs("publish", path)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "(1 runs)")

	published := filepath.Join(resultdir.Published, filepath.Base(path))
	before, err := os.Stat(path)
	require.NoError(t, err)
	after, err := os.Stat(published)
	require.NoError(t, err)
	t.Logf("%d bytes published from %d", after.Size(), before.Size())
	assert.Less(t, after.Size()*4, before.Size())

	orig, err := result.Read(path)
	require.NoError(t, err)
	back, err := result.Read(published)
	require.NoError(t, err)
	assert.Equal(t, 1, back.Schema)
	assert.Equal(t, orig.Host, back.Host)
	want, err := workload.Histogram(orig.Steady[0].Latency.Hist)
	require.NoError(t, err)
	for _, got := range []result.Latency{back.Saturate[0].Latency, back.Steady[0].Latency} {
		assert.Equal(t, result.HistEncoding, got.Hist.Encoding)
		assert.Equal(t, lat.P99, got.P99)
		h, err := workload.Histogram(got.Hist)
		require.NoError(t, err)
		assert.Equal(t, want.Export().Counts, h.Export().Counts)
	}
}

// TestPublishRefusesUnknownFields: a run to compact that holds a field
// this lab does not know is refused in one line naming it, and nothing
// is published, rather than rewritten without the field.
func TestPublishRefusesUnknownFields(t *testing.T) {
	t.Chdir(t.TempDir())
	path, _ := schema1Run(t, `"tuning":{"x":1}`)
	code, _, errs := runArgs("publish", path)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, filepath.Base(path))
	assert.Contains(t, errs, "tuning")
	assert.NoFileExists(t, filepath.Join(resultdir.Published, filepath.Base(path)))
}
