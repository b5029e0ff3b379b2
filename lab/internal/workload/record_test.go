package workload

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// recorded returns two recorders holding a spread of latencies, one of
// them above the recorder's range.
func recorded() []*Recorder {
	a, b := NewRecorder(), NewRecorder()
	for i := int64(1); i <= 50_000; i++ {
		a.Record(i * 37 % 90_000)
		b.Record(i * i % 3_000_000)
	}
	b.Record(25_000_000_000) // 25 s: over the top
	return []*Recorder{a, b}
}

// TestHistRoundTrip: the compressed histogram written into a result file
// reads back, through result.Read, as the same histogram: same count, same
// percentiles, same buckets.
func TestHistRoundTrip(t *testing.T) {
	lat := Merge(recorded())
	require.NotNil(t, lat.Hist)
	assert.Equal(t, result.HistEncoding, lat.Hist.Encoding)
	assert.Nil(t, lat.Hist.Counts)

	run := &result.Run{Schema: result.SchemaVersion, Steady: []result.SteadyResult{{Subject: "x", Latency: lat}}}
	path := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, resultdir.WriteJSON(path, run))
	back, err := result.Read(path)
	require.NoError(t, err)
	got := back.Steady[0].Latency
	assert.Equal(t, lat.P99, got.P99)
	assert.Equal(t, int64(1), got.Capped)

	h, err := Histogram(got.Hist)
	require.NoError(t, err)
	want, err := Histogram(lat.Hist)
	require.NoError(t, err)
	assert.Equal(t, lat.Count, h.TotalCount())
	for _, q := range []float64{50, 90, 99, 99.9, 99.99, 100} {
		assert.Equal(t, want.ValueAtQuantile(q), h.ValueAtQuantile(q), "q%v", q)
	}
	assert.Equal(t, want.Export().Counts, h.Export().Counts)
}

// TestHistCompact: a stored histogram is a small fraction of the counts
// array schema 1 wrote (~30,000 buckets for 1 ns..10 s at 3 figures).
func TestHistCompact(t *testing.T) {
	lat := Merge(recorded())
	enc, err := json.Marshal(lat.Hist)
	require.NoError(t, err)
	h, err := Histogram(lat.Hist)
	require.NoError(t, err)
	old, err := json.Marshal(trimmedCounts(h))
	require.NoError(t, err)
	t.Logf("compressed %d bytes, counts array %d bytes", len(enc), len(old))
	assert.Less(t, len(enc)*5, len(old), "compressed form should be at least 5x smaller")
}

func trimmedCounts(h *hdrhistogram.Histogram) []int64 {
	c := h.Export().Counts
	n := len(c)
	for n > 0 && c[n-1] == 0 {
		n--
	}
	return c[:n]
}

// TestHistReadsSchema1: a file of the old form (counts array, schema 1)
// still reads, and its histogram matches the one it was written from.
func TestHistReadsSchema1(t *testing.T) {
	lat := Merge(recorded())
	h, err := Histogram(lat.Hist)
	require.NoError(t, err)
	snap := h.Export()
	lat.Hist = &result.Hist{LowestTrackableValue: snap.LowestTrackableValue, HighestTrackableValue: snap.HighestTrackableValue,
		SignificantFigures: snap.SignificantFigures, Counts: trimmedCounts(h)}
	run := &result.Run{Schema: 1, Steady: []result.SteadyResult{{Subject: "x", Latency: lat}}}
	path := filepath.Join(t.TempDir(), "old.json")
	require.NoError(t, resultdir.WriteJSON(path, run))
	back, err := result.Read(path)
	require.NoError(t, err)
	old, err := Histogram(back.Steady[0].Latency.Hist)
	require.NoError(t, err)
	assert.Equal(t, h.TotalCount(), old.TotalCount())
	assert.Equal(t, h.ValueAtQuantile(99.9), old.ValueAtQuantile(99.9))
}

func TestHistUnreadable(t *testing.T) {
	for _, h := range []*result.Hist{nil, {Encoding: "zstd"}, {Encoding: result.HistEncoding, Data: "not base64 @@"},
		{Encoding: result.HistEncoding, Data: "AAAA"}, {SignificantFigures: 3, LowestTrackableValue: 1, HighestTrackableValue: 10, Counts: make([]int64, 1e6)}} {
		_, err := Histogram(h)
		assert.ErrorIs(t, err, ErrHist, "%+v", h)
	}
}

// TestCappedLatency: a latency above the recorder's range is counted as
// capped, and the reports print the percentiles it reached as "≥10s",
// not as a measured 10s.
func TestCappedLatency(t *testing.T) {
	r := NewRecorder()
	for range 99 {
		r.Record(1_000)
	}
	r.Record(12_000_000_000)
	r.Record(30_000_000_000)
	lat := Merge([]*Recorder{r})
	assert.Equal(t, int64(2), lat.Capped)
	assert.True(t, lat.IsCapped(lat.Max))
	assert.False(t, lat.IsCapped(lat.P50))

	uncapped := Merge(recorded()[:1])
	assert.Zero(t, uncapped.Capped)
	assert.Zero(t, uncapped.CapNs, "no cap recorded where nothing reached it")
}
