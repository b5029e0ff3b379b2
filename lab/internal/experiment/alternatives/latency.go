package alternatives

import (
	"math"
	"slices"
	"time"
)

// latency summarises a set of durations by nearest rank.
type latency struct {
	Count int64         `json:"count"`
	P50   time.Duration `json:"p50_ns"`
	P99   time.Duration `json:"p99_ns"`
	Max   time.Duration `json:"max_ns"`
}

// summarize sorts d in place and takes its percentiles.
func summarize(d []time.Duration) latency {
	if len(d) == 0 {
		return latency{}
	}
	slices.Sort(d)
	rank := func(q float64) time.Duration {
		i := int(math.Ceil(q*float64(len(d)))) - 1
		return d[min(max(i, 0), len(d)-1)]
	}
	return latency{Count: int64(len(d)), P50: rank(0.50), P99: rank(0.99), Max: d[len(d)-1]}
}
