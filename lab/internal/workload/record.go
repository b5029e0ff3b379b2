package workload

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/snowlab/snowlab/lab/result"
)

// Recorder is one goroutine's latency histogram: recording costs a few
// nanoseconds and never locks, and the goroutines' recorders are merged
// when the run ends.
type Recorder struct {
	h *hdrhistogram.Histogram
	// capped counts the latencies above the histogram's range, recorded
	// as its top: their true value is unknown, only that it is at least
	// that.
	capped int64
}

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

// NewRecorders returns n empty recorders, one per goroutine.
func NewRecorders(n int) []*Recorder {
	rs := make([]*Recorder, n)
	for i := range rs {
		rs[i] = NewRecorder()
	}
	return rs
}

// Record adds one latency in nanoseconds, clamped into the histogram's range.
func (r *Recorder) Record(ns int64) {
	if ns > histMax {
		r.capped++
		ns = histMax
	}
	_ = r.h.RecordValue(max(ns, histMin))
}

// Merge folds the recorders into one result.Latency summary with the raw counts.
func Merge(rs []*Recorder) result.Latency {
	all := hdrhistogram.New(histMin, histMax, histSigFigs)
	var capped int64
	for _, r := range rs {
		if r != nil {
			all.Merge(r.h)
			capped += r.capped
		}
	}
	l := summarise(all)
	if capped > 0 {
		l.Capped, l.CapNs = capped, histMax
	}
	return l
}

func summarise(h *hdrhistogram.Histogram) result.Latency {
	if h.TotalCount() == 0 {
		return result.Latency{}
	}
	return result.Latency{
		Count: h.TotalCount(),
		Mean:  h.Mean(),
		P50:   h.ValueAtQuantile(50),
		P90:   h.ValueAtQuantile(90),
		P99:   h.ValueAtQuantile(99),
		P999:  h.ValueAtQuantile(99.9),
		P9999: h.ValueAtQuantile(99.99),
		Max:   h.Max(),
		Hist:  encodeHist(h),
	}
}

// encodeHist stores h compactly; nil if it cannot be encoded (it always
// can: the encoder fails only on a histogram it did not build).
func encodeHist(h *hdrhistogram.Histogram) *result.Hist {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil
	}
	return &result.Hist{Encoding: result.HistEncoding, Data: string(b)}
}

// ErrHist is wrapped by every error about a stored histogram that cannot
// be read back.
var ErrHist = errors.New("workload: unreadable histogram")

// Histogram reads a stored histogram back, from either form: the
// compressed one this lab writes, or the counts array of files written
// before it (schema 1). It lives beside the recorder that encodes it, so
// that package result, which only holds the bytes, links no HdrHistogram.
func Histogram(h *result.Hist) (*hdrhistogram.Histogram, error) {
	switch {
	case h == nil:
		return nil, fmt.Errorf("%w: none stored", ErrHist)
	case h.Encoding == result.HistEncoding:
		if _, err := base64.StdEncoding.DecodeString(h.Data); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrHist, err)
		}
		d, err := hdrhistogram.Decode([]byte(h.Data))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrHist, err)
		}
		return d, nil
	case h.Encoding == "" && h.SignificantFigures > 0:
		snap := &hdrhistogram.Snapshot{LowestTrackableValue: h.LowestTrackableValue,
			HighestTrackableValue: h.HighestTrackableValue, SignificantFigures: h.SignificantFigures}
		// Import wants every bucket: pad back the trailing empty ones
		// that the writer trimmed.
		full := hdrhistogram.New(h.LowestTrackableValue, h.HighestTrackableValue, int(h.SignificantFigures))
		n := len(full.Export().Counts)
		if len(h.Counts) > n {
			return nil, fmt.Errorf("%w: %d counts for a histogram of %d buckets", ErrHist, len(h.Counts), n)
		}
		snap.Counts = make([]int64, n)
		copy(snap.Counts, h.Counts)
		return hdrhistogram.Import(snap), nil
	}
	return nil, fmt.Errorf("%w: encoding %q", ErrHist, h.Encoding)
}
