package workload

import (
	"fmt"

	"github.com/snowlab/snowlab/lab/result"
)

// Compact stores every latency histogram of run that is still an array
// of bucket counts (files of schema 1) in the compressed form the lab
// writes now (result.HistEncoding), and returns how many it re-encoded.
// Nothing is dropped: the compressed form decodes to the same buckets,
// so every count, percentile and merge read from it is unchanged, while
// a suite run's ~80 arrays of 10,000-odd counts (13 MB of JSON) shrink
// to a few hundred bytes each. The rest of the run is left as it is,
// Schema included: what else schema 1 differs in (a "+dirty" commit, no
// record of capped latencies) is not in the histogram and stays as
// written.
//
// On an error (a histogram that does not read back) run is left with
// the histograms before the bad one re-encoded, which is harmless: each
// holds the same buckets in either form.
func Compact(run *result.Run) (int, error) {
	n := 0
	for _, l := range latencies(run) {
		if l.Hist == nil || l.Hist.Encoding != "" {
			continue
		}
		h, err := Histogram(l.Hist)
		if err != nil {
			return n, err
		}
		enc := encodeHist(h)
		if enc == nil {
			return n, fmt.Errorf("%w: cannot re-encode it", ErrHist)
		}
		l.Hist = enc
		n++
	}
	return n, nil
}

// latencies are the addresses of every latency summary in run.
func latencies(run *result.Run) []*result.Latency {
	var ls []*result.Latency
	for i := range run.Burst {
		ls = append(ls, &run.Burst[i].Latency)
	}
	for i := range run.Saturate {
		ls = append(ls, &run.Saturate[i].Latency)
	}
	for i := range run.Steady {
		ls = append(ls, &run.Steady[i].Latency)
	}
	return ls
}
