package workload

import (
	"math"
	"runtime/metrics"
	"slices"
)

const (
	// metricMutexWait is the approximate cumulative time goroutines have
	// spent blocked on a sync.Mutex, sync.RWMutex or runtime-internal lock.
	// The runtime samples it, so it is an estimate.
	metricMutexWait = "/sync/mutex/wait/total:seconds"
	// metricSchedLatency is the distribution of the time goroutines spent
	// runnable before they ran.
	metricSchedLatency = "/sched/latencies:seconds"
)

// runtimeSample is a reading of the runtime metrics the lab reports as
// contention. Take one before and one after a measurement and compare them
// with runtimeDelta.
type runtimeSample struct {
	// MutexWaitSeconds is /sync/mutex/wait/total:seconds; HasMutexWait is
	// false if this Go does not provide it.
	MutexWaitSeconds float64
	HasMutexWait     bool
	// SchedLatency is /sched/latencies:seconds: Counts[i] goroutines waited
	// between Buckets[i] and Buckets[i+1] seconds. Buckets may begin with
	// -Inf and end with +Inf. Both are nil if this Go does not provide it.
	SchedLatencyBuckets []float64
	SchedLatencyCounts  []uint64
}

// readRuntime reads the runtime metrics in runtimeSample.
func readRuntime() runtimeSample {
	s := []metrics.Sample{{Name: metricMutexWait}, {Name: metricSchedLatency}}
	metrics.Read(s)
	var r runtimeSample
	if s[0].Value.Kind() == metrics.KindFloat64 {
		r.MutexWaitSeconds, r.HasMutexWait = s[0].Value.Float64(), true
	}
	if s[1].Value.Kind() == metrics.KindFloat64Histogram {
		h := s[1].Value.Float64Histogram()
		// Copy: the runtime may share Buckets between reads.
		r.SchedLatencyBuckets = append([]float64(nil), h.Buckets...)
		r.SchedLatencyCounts = append([]uint64(nil), h.Counts...)
	}
	return r
}

// histDelta is the counts of histogram b less those of a. If the two do not
// share a bucket layout, a is ignored.
func histDelta(aBuckets []float64, aCounts []uint64, bBuckets []float64, bCounts []uint64) []uint64 {
	d := append([]uint64(nil), bCounts...)
	if !slices.Equal(aBuckets, bBuckets) || len(aCounts) != len(bCounts) {
		return d
	}
	for i := range d {
		if d[i] >= aCounts[i] {
			d[i] -= aCounts[i]
		} else {
			d[i] = 0 // counts are cumulative; never expected
		}
	}
	return d
}

// histQuantile returns the q-quantile (0 < q <= 1) of a histogram in the
// runtime/metrics layout (counts[i] between buckets[i] and buckets[i+1]):
// the upper bound of the bucket holding the ceil(q*total)'th value. Where
// that bound is +Inf the bucket's lower bound is returned instead, so the
// result is always finite (and so safe for JSON); 0 for an empty or
// malformed histogram.
func histQuantile(buckets []float64, counts []uint64, q float64) float64 {
	if len(counts) == 0 || len(buckets) != len(counts)+1 {
		return 0
	}
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q*float64(total) - 1e-9)) // 1e-9: 0.99*100 must not round up to 100
	rank = min(max(rank, 1), total)
	var cum uint64
	for i, c := range counts {
		cum += c
		if cum < rank {
			continue
		}
		if hi := buckets[i+1]; !math.IsInf(hi, 0) {
			return hi
		}
		if lo := buckets[i]; !math.IsInf(lo, 0) {
			return lo
		}
		return 0
	}
	return 0
}
