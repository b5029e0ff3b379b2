package lab

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
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

// Record adds one latency in nanoseconds, clamped into the histogram's range.
func (r *Recorder) Record(ns int64) {
	if ns > histMax {
		r.capped++
		ns = histMax
	}
	_ = r.h.RecordValue(max(ns, histMin))
}

// Merge folds the recorders into one Latency summary with the raw counts.
func Merge(rs []*Recorder) Latency {
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

func summarise(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
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

// HistEncoding names the form of Hist.Data: HdrHistogram's V2 compressed
// encoding (the form its Java, C and Go implementations all read), in
// base64. A 10 s histogram at 3 significant figures holds 30,000-odd
// buckets; stored as a JSON array of counts that was ~100 KiB per result
// and 14 MB per suite run, compressed it is a few hundred bytes.
const HistEncoding = "hdr-v2-compressed-base64"

// encodeHist stores h compactly; nil if it cannot be encoded (it always
// can: the encoder fails only on a histogram it did not build).
func encodeHist(h *hdrhistogram.Histogram) *Hist {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil
	}
	return &Hist{Encoding: HistEncoding, Data: string(b)}
}

// ErrHist is wrapped by every error about a stored histogram that cannot
// be read back.
var ErrHist = errors.New("lab: unreadable histogram")

// Histogram reads the stored histogram back, from either form: the
// compressed one this lab writes, or the counts array of files written
// before it (schema 1).
func (h *Hist) Histogram() (*hdrhistogram.Histogram, error) {
	switch {
	case h == nil:
		return nil, fmt.Errorf("%w: none stored", ErrHist)
	case h.Encoding == HistEncoding:
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
