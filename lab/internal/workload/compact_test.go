package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/result"
)

// countsForm is lat's histogram in the form schema 1 stored: the bucket
// counts, trailing empty ones trimmed.
func countsForm(t *testing.T, lat result.Latency) result.Latency {
	t.Helper()
	h, err := Histogram(lat.Hist)
	require.NoError(t, err)
	snap := h.Export()
	lat.Hist = &result.Hist{LowestTrackableValue: snap.LowestTrackableValue, HighestTrackableValue: snap.HighestTrackableValue,
		SignificantFigures: snap.SignificantFigures, Counts: trimmedCounts(h)}
	return lat
}

// TestCompact: every counts array of a schema-1 run is stored compressed,
// holding the same buckets; what was compressed already, or stores no
// histogram, is left alone, and the rest of the run is not touched.
func TestCompact(t *testing.T) {
	lat := Merge(recorded())
	old := countsForm(t, lat)
	run := &result.Run{
		Schema: 1, Commit: "abc1234+dirty",
		Burst:    []result.BurstResult{{Subject: "a", Latency: old}, {Subject: "b", Latency: lat}},
		Saturate: []result.SaturateResult{{Subject: "a", Latency: old}, {Subject: "b"}},
		Steady:   []result.SteadyResult{{Subject: "a", Latency: old}},
	}
	n, err := Compact(run)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Equal(t, 1, run.Schema, "the rest of a schema-1 run keeps schema 1's meaning")
	assert.Equal(t, "abc1234+dirty", run.Commit)
	assert.Same(t, lat.Hist, run.Burst[1].Latency.Hist, "an encoded histogram is kept as it is")
	assert.Nil(t, run.Saturate[1].Latency.Hist)

	want, err := Histogram(old.Hist)
	require.NoError(t, err)
	for _, got := range []result.Latency{run.Burst[0].Latency, run.Saturate[0].Latency, run.Steady[0].Latency} {
		assert.Equal(t, result.HistEncoding, got.Hist.Encoding)
		assert.Nil(t, got.Hist.Counts)
		assert.Equal(t, old.P99, got.P99, "the summary is not recomputed")
		h, err := Histogram(got.Hist)
		require.NoError(t, err)
		assert.Equal(t, want.Export().Counts, h.Export().Counts)
		assert.Equal(t, want.TotalCount(), h.TotalCount())
	}

	n, err = Compact(run)
	require.NoError(t, err)
	assert.Zero(t, n, "a compacted run has nothing left to compact")
}

// TestCompactUnreadable: a counts array that is no histogram is an error
// wrapping ErrHist, not a histogram made up from it.
func TestCompactUnreadable(t *testing.T) {
	bad := &result.Hist{SignificantFigures: 3, LowestTrackableValue: 1, HighestTrackableValue: 10, Counts: make([]int64, 1e6)}
	run := &result.Run{Schema: 1, Steady: []result.SteadyResult{{Latency: result.Latency{Hist: bad}}}}
	n, err := Compact(run)
	assert.ErrorIs(t, err, ErrHist)
	assert.Zero(t, n)
	assert.Same(t, bad, run.Steady[0].Latency.Hist)
}
