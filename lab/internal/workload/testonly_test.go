package workload

import (
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// What only this package's tests call, kept out of the build.

// runtimeDelta compares two samples, a taken before b: the mutex wait
// between them in nanoseconds per ID (ids <= 0 gives the total), and the
// p99 in nanoseconds of the scheduler latencies recorded between them (the
// upper bound of the bucket holding the p99; 0 when none were recorded).
// A metric the runtime did not provide reads 0.
func runtimeDelta(a, b runtimeSample, ids int) (mutexWaitNsPerID, schedLatencyP99Ns float64) {
	if a.HasMutexWait && b.HasMutexWait {
		if d := b.MutexWaitSeconds - a.MutexWaitSeconds; d > 0 {
			mutexWaitNsPerID = d * 1e9 / float64(max(ids, 1))
		}
	}
	counts := histDelta(a.SchedLatencyBuckets, a.SchedLatencyCounts, b.SchedLatencyBuckets, b.SchedLatencyCounts)
	schedLatencyP99Ns = histQuantile(b.SchedLatencyBuckets, counts, 0.99) * 1e9
	return mutexWaitNsPerID, schedLatencyP99Ns
}

// saturate runs s closed-loop with g goroutines and reports IDs/s per
// repeat, sampled per-call latency, contention and the check.
func saturate(s subject.Subject, g int, cfg SaturateConfig) (result.SaturateResult, error) {
	p, err := newSaturation(s, g, cfg)
	if err != nil {
		return p.res, err
	}
	buf := make([]subject.ID, p.cfg.MaxIDs)
	for range p.cfg.Repeats {
		if err := p.repeat(buf); err != nil {
			return p.res, err
		}
	}
	return p.finish(), nil
}
