package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
)

// schema1Run writes into dir (made if missing) a run as an older lab
// wrote it: schema 1, its latency histograms arrays of bucket counts,
// with extra (a JSON member) added to its top level when not "". It
// returns the file's path and the latency as recorded, its histogram in
// the compressed form a current lab writes.
func schema1Run(t testing.TB, dir, extra string) (path string, recorded result.Latency) {
	t.Helper()
	r := workload.NewRecorder()
	for i := int64(1); i <= 20_000; i++ {
		r.Record(i * 7919 % 5_000_000)
	}
	recorded = workload.Merge([]*workload.Recorder{r})
	h, err := workload.Histogram(recorded.Hist)
	require.NoError(t, err)
	snap := h.Export()
	counts := snap.Counts
	for len(counts) > 0 && counts[len(counts)-1] == 0 {
		counts = counts[:len(counts)-1]
	}
	old := recorded
	old.Hist = &result.Hist{LowestTrackableValue: snap.LowestTrackableValue, HighestTrackableValue: snap.HighestTrackableValue,
		SignificantFigures: snap.SignificantFigures, Counts: counts}
	run := &result.Run{Schema: 1, Commit: "ddddddd", Started: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC),
		Host:     result.Host{Hostname: "lab-vm-3", GOMAXPROCS: 2},
		Saturate: []result.SaturateResult{{Subject: "atomicgen/strict", Goroutines: 1, IDsPerSec: 4e6, Latency: old}},
		Steady:   []result.SteadyResult{{Subject: "atomicgen/strict", TargetRate: 1e5, Latency: old}}}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path = filepath.Join(dir, resultdir.Stem(run)+".json")
	require.NoError(t, resultdir.WriteJSON(path, run))
	if extra != "" {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, bytes.Replace(data, []byte("{"), []byte("{"+extra+","), 1), 0o644))
	}
	return path, recorded
}
