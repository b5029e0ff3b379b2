package lab

import (
	"github.com/HdrHistogram/hdrhistogram-go"
)

// Recorder is one goroutine's latency histogram: recording costs a few
// nanoseconds and never locks, and the goroutines' recorders are merged
// when the run ends.
type Recorder struct{ h *hdrhistogram.Histogram }

// Latencies from 1 ns to 10 s at 3 significant figures.
const (
	histMin     = 1
	histMax     = 10_000_000_000
	histSigFigs = 3
)

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{h: hdrhistogram.New(histMin, histMax, histSigFigs)}
}

// Record adds one latency in nanoseconds, clamped into the histogram's range.
func (r *Recorder) Record(ns int64) {
	_ = r.h.RecordValue(min(max(ns, histMin), histMax))
}

// Merge folds the recorders into one Latency summary with the raw counts.
func Merge(rs []*Recorder) Latency {
	all := hdrhistogram.New(histMin, histMax, histSigFigs)
	for _, r := range rs {
		if r != nil {
			all.Merge(r.h)
		}
	}
	return summarise(all)
}

func summarise(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	snap := h.Export()
	return Latency{
		Count: h.TotalCount(),
		Mean:  h.Mean(),
		P50:   h.ValueAtQuantile(50),
		P90:   h.ValueAtQuantile(90),
		P99:   h.ValueAtQuantile(99),
		P999:  h.ValueAtQuantile(99.9),
		P9999: h.ValueAtQuantile(99.99),
		Max:   h.Max(),
		Hist: &Hist{
			LowestTrackableValue:  snap.LowestTrackableValue,
			HighestTrackableValue: snap.HighestTrackableValue,
			SignificantFigures:    snap.SignificantFigures,
			Counts:                trimCounts(snap.Counts),
		},
	}
}

// trimCounts drops the trailing empty buckets, which are most of a
// histogram sized for 10 s; an importer pads them back with zeros.
func trimCounts(c []int64) []int64 {
	n := len(c)
	for n > 0 && c[n-1] == 0 {
		n--
	}
	return c[:n:n]
}
