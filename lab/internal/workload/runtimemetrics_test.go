package workload

import (
	"math"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRuntimeMetricsExist(t *testing.T) {
	want := map[string]metrics.ValueKind{
		metricMutexWait:    metrics.KindFloat64,
		metricSchedLatency: metrics.KindFloat64Histogram,
	}
	for _, d := range metrics.All() {
		if k, ok := want[d.Name]; ok {
			assert.Equal(t, k, d.Kind, "kind of %s", d.Name)
			delete(want, d.Name)
		}
	}
	assert.Empty(t, want, "metrics missing from runtime/metrics")
	s := readRuntime()
	assert.True(t, s.HasMutexWait, "ReadRuntime() has no mutex wait")
	assert.Equal(t, len(s.SchedLatencyCounts)+1, len(s.SchedLatencyBuckets), "ReadRuntime(): scheduling latency buckets for %d counts", len(s.SchedLatencyCounts))
}

func TestRuntimeDeltaMutexContention(t *testing.T) {
	const goroutines, rounds = 8, 20
	a := readRuntime()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				mu.Lock()
				time.Sleep(100 * time.Microsecond)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b := readRuntime()
	ids := goroutines * rounds
	wait, p99 := runtimeDelta(a, b, ids)
	t.Logf("mutex wait %.0f ns/ID, sched latency p99 %.0f ns", wait, p99)
	assert.Positive(t, wait, "mutexWaitNsPerID with %d goroutines contending", goroutines)
	assert.False(t, math.IsInf(p99, 0) || math.IsNaN(p99), "schedLatencyP99Ns = %v, want finite", p99)
	assert.GreaterOrEqual(t, p99, 0.0, "schedLatencyP99Ns")
	// Per ID: the total divides by ids.
	total, _ := runtimeDelta(a, b, 0)
	assert.InDelta(t, wait, total/float64(ids), 1e-6*total, "RuntimeDelta(ids=0) = %v, want %v * %d", total, wait, ids)
	// Nothing between a sample and itself.
	w, p := runtimeDelta(b, b, 1)
	assert.Zero(t, w, "RuntimeDelta(b, b) mutex wait")
	assert.Zero(t, p, "RuntimeDelta(b, b) p99")
}

func TestHistQuantile(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name    string
		buckets []float64
		counts  []uint64
		q       float64
		want    float64
	}{
		{"empty", []float64{0, 1}, []uint64{0}, 0.99, 0},
		{"no counts", nil, nil, 0.99, 0},
		{"malformed", []float64{0, 1}, []uint64{1, 2}, 0.99, 0},
		{"single bucket", []float64{0, 1e-6}, []uint64{5}, 0.99, 1e-6},
		{"all in first", []float64{0, 1, 2, 3}, []uint64{100, 0, 0}, 0.99, 1},
		{"p99 in last of 100", []float64{0, 1, 2}, []uint64{99, 1}, 0.99, 1},
		{"p99 past 99 of 100", []float64{0, 1, 2}, []uint64{98, 2}, 0.99, 2},
		{"p50", []float64{0, 1, 2, 3}, []uint64{1, 1, 2}, 0.5, 2},
		{"p100", []float64{0, 1, 2, 3}, []uint64{1, 1, 2}, 1, 3},
		{"+Inf upper uses lower", []float64{0, 1, 2, inf}, []uint64{10, 0, 90}, 0.99, 2},
		{"-Inf lower, finite upper", []float64{math.Inf(-1), 0, 1}, []uint64{5, 0}, 0.99, 0},
		{"only infinite bounds", []float64{math.Inf(-1), inf}, []uint64{3}, 0.99, 0},
		{"leading zeros", []float64{0, 1e-9, 1e-8, 1e-7}, []uint64{0, 0, 7}, 0.99, 1e-7},
	} {
		assert.Equal(t, tc.want, histQuantile(tc.buckets, tc.counts, tc.q), "%s: histQuantile", tc.name)
	}
}

func TestRuntimeDeltaHistogram(t *testing.T) {
	buckets := []float64{0, 1e-6, 1e-5, 1e-4, math.Inf(1)}
	for _, tc := range []struct {
		name string
		a, b []uint64
		want float64 // ns
	}{
		{"difference only", []uint64{1000, 0, 0, 0}, []uint64{1000, 100, 0, 0}, 1e4},
		{"tail in last finite", []uint64{0, 0, 0, 0}, []uint64{90, 5, 5, 0}, 1e5},
		{"tail in +Inf", []uint64{0, 0, 0, 0}, []uint64{0, 0, 0, 3}, 1e5},
		{"nothing new", []uint64{4, 4, 4, 4}, []uint64{4, 4, 4, 4}, 0},
	} {
		a := runtimeSample{SchedLatencyBuckets: buckets, SchedLatencyCounts: tc.a}
		b := runtimeSample{SchedLatencyBuckets: buckets, SchedLatencyCounts: tc.b}
		_, got := runtimeDelta(a, b, 10)
		assert.InDelta(t, tc.want, got, 1e-6, "%s: p99 ns", tc.name)
	}
	// Mutex wait per ID, and a missing metric reads 0.
	a := runtimeSample{MutexWaitSeconds: 1, HasMutexWait: true}
	b := runtimeSample{MutexWaitSeconds: 1.5, HasMutexWait: true}
	w, _ := runtimeDelta(a, b, 1000)
	assert.InDelta(t, 5e5, w, 1e-6, "mutex wait ns/ID")
	w, p := runtimeDelta(runtimeSample{}, b, 1000)
	assert.Zero(t, w, "missing metrics: mutex wait")
	assert.Zero(t, p, "missing metrics: p99")
}
