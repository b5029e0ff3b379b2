package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/snowlab/snowlab/lab/host"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

// Synthetic runs for the compare and gate tests.

const testCeiling = 4.096e6 // 4096 IDs per ms, one node

var testGs = []int{1, 2, 4, 8}

// jitter is the per-repeat noise; each series starts at its own offset so
// that per-repeat ratios vary too.
var jitter = []float64{-0.02, 0.013, -0.007, 0.004, 0.018, -0.011, 0.009, -0.015}

func noisy(v float64, n, offset int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v * (1 + jitter[(i+offset)%len(jitter)])
	}
	return s
}

// satRate is the synthetic IDs/s of a subject at G goroutines: strict
// subjects sit just under the ceiling at every G (as on a real host, where
// one goroutine already reaches it), monotonic ones do not have one.
func satRate(subject string, g int) float64 {
	switch subject {
	case atomicStrict:
		return 0.99 * testCeiling
	case mutexStrict:
		return 0.985 * testCeiling
	case atomicMonotonic:
		return 20e6
	case mutexMonotonic:
		return 10e6
	case shardedScaling:
		return 15e6 * float64(g)
	}
	panic(subject)
}

// testRun builds a run with n repeats per saturate point and per burst.
func testRun(n int) *result.Run {
	run := &result.Run{
		Schema:  result.SchemaVersion,
		Started: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		Commit:  "abc1234",
		Host:    host.Fingerprint{Hostname: "ci-1", CPU: "Test CPU 8-core", GOMAXPROCS: 8, GoVersion: "go1.26.8"},
		Subjects: []result.SubjectInfo{
			{Name: atomicStrict, Library: "github.com/snowlab/snowlab", Strict: true, Nodes: 1, CeilingIDs: testCeiling},
			{Name: mutexStrict, Library: "github.com/snowlab/snowlab", Strict: true, Nodes: 1, CeilingIDs: testCeiling},
			{Name: atomicMonotonic, Library: "github.com/snowlab/snowlab", Nodes: 1},
			{Name: mutexMonotonic, Library: "github.com/snowlab/snowlab", Nodes: 1},
			{Name: shardedScaling, Library: "github.com/snowlab/snowlab", Nodes: 8},
		},
	}
	for si, s := range run.Subjects {
		for gi, g := range testGs {
			samples := noisy(satRate(s.Name, g), n, 3*si+gi)
			r := result.SaturateResult{
				Subject: s.Name, Goroutines: g, Duration: time.Second,
				Samples: samples, IDsPerSec: stats.Median(samples),
				Check: result.Check{IDs: 1000},
			}
			run.Saturate = append(run.Saturate, r)
		}
	}
	for i, via := range []string{"NextID", "NextIDs"} {
		ms := noisy(2e6*float64(i+1), n, i)
		b := result.BurstResult{
			Subject: atomicStrict, Via: via, Goroutines: 8, IDs: 65536, Repeats: n,
			Latency: result.Latency{Count: 65536, P99: 2000, P999: 8000},
			Check:   result.Check{IDs: 65536},
		}
		for _, v := range ms {
			b.MakespanNs = append(b.MakespanNs, int64(v))
		}
		run.Burst = append(run.Burst, b)
	}
	run.Steady = []result.SteadyResult{{
		Subject: atomicStrict, TargetRate: 1e6, Achieved: 1e6, Duration: time.Second,
		Latency: result.Latency{Count: 1e6, P99: 500}, Check: result.Check{IDs: 1e6},
	}}
	return run
}

// clone deep-copies a run through its JSON form.
func clone(t *testing.T, r *result.Run) *result.Run {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var c result.Run
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// scaleSat multiplies the saturate figures of the subjects keep selects
// (all when nil) at the goroutine counts gs (all when nil).
func scaleSat(r *result.Run, f float64, keep func(subject string, g int) bool) {
	for i := range r.Saturate {
		s := &r.Saturate[i]
		if keep != nil && !keep(s.Subject, s.Goroutines) {
			continue
		}
		for j := range s.Samples {
			s.Samples[j] *= f
		}
		s.IDsPerSec *= f
	}
}

func only(subject string, g int) func(string, int) bool {
	return func(s string, n int) bool { return s == subject && (g == 0 || n == g) }
}

func rowsOf(c Comparison, metric string) []Row {
	var rows []Row
	for _, r := range c.Rows {
		if r.Metric == metric {
			rows = append(rows, r)
		}
	}
	return rows
}

func TestMinSamplesAgreesWithBenchmath(t *testing.T) {
	if got := minSamples(0.05); got != 4 {
		t.Errorf("minSamples(0.05) = %d, want 4 (benchmath's table)", got)
	}
	// benchmath warns "need >= N samples" exactly when our tooFew says so
	// (equal sizes, samples maximally apart).
	for n := 1; n <= 8; n++ {
		a, b := make([]float64, n), make([]float64, n)
		for i := range n {
			a[i], b[i] = float64(i), float64(100+i)
		}
		res := analyse(a, b)
		warned := len(res.cmp.Warnings) > 0
		if n > 1 && warned != res.tooFew {
			t.Errorf("n=%d: benchmath warned %v (%v), tooFew %v", n, warned, res.cmp.Warnings, res.tooFew)
		}
		if wantSig := n >= 4; res.significant() != wantSig {
			t.Errorf("n=%d: significant %v, want %v (p=%v)", n, res.significant(), wantSig, res.cmp.P)
		}
	}
}

func TestRuns(t *testing.T) {
	type want struct {
		metric  string
		outcome Outcome
		change  float64 // percent, checked when not NaN
		verdict string  // substring of every row's verdict
	}
	nan := math.NaN()
	tests := []struct {
		name     string
		n        int               // repeats
		prep     func(*result.Run) // applied to both runs
		mutate   func(*result.Run) // applied to the new run
		want     []want
		hosts    bool     // hosts differ
		onlyNew  int      // metrics only in new
		wantText []string // in Write's output
	}{
		{
			name: "identical", n: 6, mutate: func(*result.Run) {},
			want: []want{
				{"saturate IDs/s", NoChange, 0, "~ (p=1.000 n=6+6)"},
				{"burst makespan", NoChange, 0, "~ (p="},
				{"burst p99 latency", NoSamples, 0, "no samples"},
				{"burst p99.9 latency", NoSamples, 0, "no samples"},
				{"steady p99 latency", NoSamples, 0, "no samples"},
			},
			wantText: []string{"saturate IDs/s (higher is better)", "burst makespan (lower is better)", "atomicgen/strict G=8", "shardedgen/node-per-shard/monotonic G=8"},
		},
		{
			name: "IDs/s halved", n: 6, mutate: func(r *result.Run) { scaleSat(r, 0.5, nil) },
			want: []want{
				{"saturate IDs/s", Worse, -50, "-50.0% worse (p=0.002 n=6+6)"},
				{"burst makespan", NoChange, 0, "~"},
			},
			wantText: []string{"-50.0% worse (p=0.002 n=6+6)"},
		},
		{
			name: "IDs/s doubled", n: 6, mutate: func(r *result.Run) { scaleSat(r, 2, nil) },
			want: []want{{"saturate IDs/s", Better, 100, "+100.0% better"}},
		},
		{
			name: "makespan doubled, latency doubled", n: 6,
			mutate: func(r *result.Run) {
				for i := range r.Burst {
					for j := range r.Burst[i].MakespanNs {
						r.Burst[i].MakespanNs[j] *= 2
					}
					r.Burst[i].Latency.P99 *= 2
					r.Burst[i].Latency.P999 *= 2
				}
			},
			want: []want{
				{"burst makespan", Worse, 100, "+100.0% worse"},
				{"burst p99 latency", NoSamples, 100, "+100.0% (no samples)"},
				{"burst p99.9 latency", NoSamples, 100, "+100.0% (no samples)"},
				{"saturate IDs/s", NoChange, 0, "~"},
			},
		},
		{
			name: "makespan shortened", n: 6,
			mutate: func(r *result.Run) {
				for i := range r.Burst {
					for j := range r.Burst[i].MakespanNs {
						r.Burst[i].MakespanNs[j] = r.Burst[i].MakespanNs[j] * 3 / 4
					}
				}
			},
			want: []want{{"burst makespan", Better, -25, "-25.0% better"}},
		},
		{
			name: "too few samples", n: 3, mutate: func(r *result.Run) { scaleSat(r, 0.5, nil) },
			want: []want{
				{"saturate IDs/s", TooFewSamples, -50, "too few samples, need >=4 per side"},
				{"burst makespan", TooFewSamples, nan, "~ (p="},
			},
			wantText: []string{"too few samples"},
		},
		{
			name: "latency repeats are tested", n: 6,
			prep: func(r *result.Run) {
				// Six steady runs at the same rate form a sample.
				for i := 0; i < 5; i++ {
					r.Steady = append(r.Steady, r.Steady[0])
				}
				for i := range r.Steady {
					r.Steady[i].Latency.P99 = int64(1000 + 10*i)
				}
			},
			mutate: func(r *result.Run) {
				for i := range r.Steady {
					r.Steady[i].Latency.P99 *= 2
				}
			},
			want: []want{{"steady p99 latency", Worse, 100, "+100.0% worse (p=0.002 n=6+6)"}},
		},
		{
			name: "different host", n: 6,
			mutate: func(r *result.Run) {
				r.Host.CPU = "Other CPU 32-core"
				r.Host.GOMAXPROCS = 32
				scaleSat(r, 2, nil)
			},
			hosts: true,
			want:  []want{{"saturate IDs/s", Better, 100, "better"}},
			wantText: []string{
				"hosts differ (CPU \"Test CPU 8-core\" vs \"Other CPU 32-core\"; GOMAXPROCS 8 vs 32)",
				"absolute figures across hosts are not comparable",
				"+100.0% better",
			},
		},
		{
			name: "metric only in new", n: 6,
			mutate: func(r *result.Run) {
				r.Saturate = append(r.Saturate, result.SaturateResult{Subject: atomicStrict, Goroutines: 16, Samples: noisy(4e6, 6, 0)})
			},
			onlyNew:  1,
			want:     []want{{"saturate IDs/s", NoChange, 0, "~"}},
			wantText: []string{"only in new (not compared): saturate IDs/s atomicgen/strict G=16"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := testRun(tc.n)
			if tc.prep != nil {
				tc.prep(old)
			}
			new := clone(t, old)
			tc.mutate(new)
			c := Runs(old, new)
			if c.HostsDiffer != tc.hosts {
				t.Errorf("HostsDiffer = %v (%q), want %v", c.HostsDiffer, c.HostNote, tc.hosts)
			}
			if len(c.OnlyNew) != tc.onlyNew || len(c.OnlyOld) != 0 {
				t.Errorf("OnlyOld %q, OnlyNew %q", c.OnlyOld, c.OnlyNew)
			}
			for _, w := range tc.want {
				rows := rowsOf(c, w.metric)
				if len(rows) == 0 {
					t.Errorf("no %s rows", w.metric)
				}
				for _, r := range rows {
					if r.Outcome != w.outcome {
						t.Errorf("%s %s: outcome %v, want %v (verdict %q)", r.Metric, r.Name, r.Outcome, w.outcome, r.Verdict)
					}
					if !math.IsNaN(w.change) && math.Abs(r.Change-w.change) > 1e-3 {
						t.Errorf("%s %s: change %.3f%%, want %.3f%%", r.Metric, r.Name, r.Change, w.change)
					}
					if !strings.Contains(r.Verdict, w.verdict) {
						t.Errorf("%s %s: verdict %q, want it to contain %q", r.Metric, r.Name, r.Verdict, w.verdict)
					}
				}
			}
			var buf bytes.Buffer
			if err := c.Write(&buf); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, w := range tc.wantText {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.hosts != strings.Contains(out, "hosts differ") {
				t.Errorf("host note printed %v, want %v:\n%s", !tc.hosts, tc.hosts, out)
			}
		})
	}
}

func TestRunsRowCount(t *testing.T) {
	run := testRun(6)
	c := Runs(run, clone(t, run))
	// 5 subjects × 4 G, 2 bursts × (makespan, p99, p99.9), 1 steady.
	if got, want := len(c.Rows), 20+6+1; got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	// Sections are contiguous and in metricOrder.
	last := -1
	for _, r := range c.Rows {
		i := 0
		for metricOrder[i] != r.Metric {
			i++
		}
		if i < last {
			t.Fatalf("row %s %s out of section order", r.Metric, r.Name)
		}
		last = i
	}
}

func TestRunsWriteError(t *testing.T) {
	run := testRun(6)
	err := Runs(run, run).Write(failWriter{})
	if err == nil {
		t.Fatal("Write to a failing writer returned nil")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func TestFormat(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{NoChange.String(), "~"},
		{TooFewSamples.String(), "too few samples"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
