package workload

import (
	"math"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

func TestRuntimeMetricsExist(t *testing.T) {
	want := map[string]metrics.ValueKind{
		metricMutexWait:    metrics.KindFloat64,
		metricSchedLatency: metrics.KindFloat64Histogram,
	}
	for _, d := range metrics.All() {
		if k, ok := want[d.Name]; ok {
			if d.Kind != k {
				t.Errorf("%s has kind %v, want %v", d.Name, d.Kind, k)
			}
			delete(want, d.Name)
		}
	}
	for name := range want {
		t.Errorf("runtime/metrics has no %s", name)
	}
	s := ReadRuntime()
	if !s.HasMutexWait || len(s.SchedLatencyBuckets) != len(s.SchedLatencyCounts)+1 {
		t.Errorf("ReadRuntime() = %d buckets, %d counts, mutex %v", len(s.SchedLatencyBuckets), len(s.SchedLatencyCounts), s.HasMutexWait)
	}
}

func TestRuntimeDeltaMutexContention(t *testing.T) {
	const goroutines, rounds = 8, 20
	a := ReadRuntime()
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
	b := ReadRuntime()
	ids := goroutines * rounds
	wait, p99 := RuntimeDelta(a, b, ids)
	t.Logf("mutex wait %.0f ns/ID, sched latency p99 %.0f ns", wait, p99)
	if !(wait > 0) {
		t.Errorf("mutexWaitNsPerID = %v, want > 0 with %d goroutines contending", wait, goroutines)
	}
	if p99 < 0 || math.IsInf(p99, 0) || math.IsNaN(p99) {
		t.Errorf("schedLatencyP99Ns = %v, want finite and >= 0", p99)
	}
	// Per ID: the total divides by ids.
	total, _ := RuntimeDelta(a, b, 0)
	if math.Abs(total/float64(ids)-wait) > 1e-6*total {
		t.Errorf("RuntimeDelta(ids=0) = %v, want %v * %d", total, wait, ids)
	}
	// Nothing between a sample and itself.
	if w, p := RuntimeDelta(b, b, 1); w != 0 || p != 0 {
		t.Errorf("RuntimeDelta(b, b) = %v, %v; want 0, 0", w, p)
	}
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
		got := histQuantile(tc.buckets, tc.counts, tc.q)
		if got != tc.want {
			t.Errorf("%s: histQuantile = %v, want %v", tc.name, got, tc.want)
		}
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
		a := RuntimeSample{SchedLatencyBuckets: buckets, SchedLatencyCounts: tc.a}
		b := RuntimeSample{SchedLatencyBuckets: buckets, SchedLatencyCounts: tc.b}
		_, got := RuntimeDelta(a, b, 10)
		if math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("%s: p99 = %v ns, want %v", tc.name, got, tc.want)
		}
	}
	// Mutex wait per ID, and a missing metric reads 0.
	a := RuntimeSample{MutexWaitSeconds: 1, HasMutexWait: true}
	b := RuntimeSample{MutexWaitSeconds: 1.5, HasMutexWait: true}
	if w, _ := RuntimeDelta(a, b, 1000); math.Abs(w-5e5) > 1e-6 {
		t.Errorf("mutex wait = %v ns/ID, want 5e5", w)
	}
	if w, p := RuntimeDelta(RuntimeSample{}, b, 1000); w != 0 || p != 0 {
		t.Errorf("missing metrics: %v, %v; want 0, 0", w, p)
	}
}
