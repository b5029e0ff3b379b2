package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/result"
)

// The compare and gate tests run on fixture.Sweep: snowlab's generators
// and the limit subjects at 1, 2, 4 and 8 goroutines (sweepGs of them), n
// repeats each.
var testRun = fixture.Sweep

const sweepGs = 4

// clone deep-copies a run through its JSON form.
func clone(t *testing.T, r *result.Run) *result.Run {
	t.Helper()
	data, err := json.Marshal(r)
	require.NoError(t, err)
	var c result.Run
	require.NoError(t, json.Unmarshal(data, &c))
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
	assert.Equal(t, 4, minSamples(0.05), "benchmath's table")
	// benchmath warns "need >= N samples" exactly when our tooFew says so
	// (equal sizes, samples maximally apart).
	for n := 1; n <= 8; n++ {
		a, b := make([]float64, n), make([]float64, n)
		for i := range n {
			a[i], b[i] = float64(i), float64(100+i)
		}
		res := analyse(a, b)
		if n > 1 {
			assert.Equal(t, res.tooFew, len(res.cmp.Warnings) > 0, "n=%d: benchmath warned %v", n, res.cmp.Warnings)
		}
		assert.Equal(t, n >= 4, res.significant(), "n=%d (p=%v)", n, res.cmp.P)
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
				{"burst p99 latency", NoSamples, 0, "not tested (one value per side)"},
				{"burst p99.9 latency", NoSamples, 0, "not tested (one value per side)"},
				{"steady p99 latency", NoSamples, 0, "not tested (one value per side)"},
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
				{"burst p99 latency", NoSamples, 100, "×2.00, not tested (one value per side)"},
				{"burst p99.9 latency", NoSamples, 100, "×2.00, not tested (one value per side)"},
				{"saturate IDs/s", NoChange, 0, "~"},
			},
		},
		{
			// A tail that moved by orders of magnitude reads as how many
			// times, not as "+140370.4%".
			name: "p99 latency ×1404", n: 6,
			mutate: func(r *result.Run) {
				for i := range r.Burst {
					r.Burst[i].Latency.P99 *= 1404
					r.Burst[i].Latency.P999 /= 1600
				}
			},
			want: []want{
				{"burst p99 latency", NoSamples, nan, "×1404, not tested"},
				{"burst p99.9 latency", NoSamples, nan, "×0.0006"},
			},
			wantText: []string{"×1404, not tested"},
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
				r.Saturate = append(r.Saturate, result.SaturateResult{Subject: atomicStrict, Goroutines: 16, Samples: []float64{3.92e6, 4.052e6, 3.972e6, 4.016e6, 4.072e6, 3.956e6}})
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
			assert.Equal(t, tc.hosts, c.HostsDiffer, c.HostNote)
			assert.Len(t, c.OnlyNew, tc.onlyNew)
			assert.Empty(t, c.OnlyOld)
			for _, w := range tc.want {
				rows := rowsOf(c, w.metric)
				assert.NotEmpty(t, rows, "no %s rows", w.metric)
				for _, r := range rows {
					assert.Equal(t, w.outcome, r.Outcome, "%s %s (verdict %q)", r.Metric, r.Name, r.Verdict)
					if !math.IsNaN(w.change) {
						assert.InDelta(t, w.change, float64(r.Change), 1e-3, "%s %s: change", r.Metric, r.Name)
					}
					assert.Contains(t, r.Verdict, w.verdict, "%s %s", r.Metric, r.Name)
				}
			}
			var buf bytes.Buffer
			require.NoError(t, c.Write(&buf))
			out := buf.String()
			for _, w := range tc.wantText {
				assert.Contains(t, out, w)
			}
			assert.Equal(t, tc.hosts, strings.Contains(out, "hosts differ"), out)
		})
	}
}

func TestRunsRowCount(t *testing.T) {
	run := testRun(6)
	c := Runs(run, clone(t, run))
	// 7 subjects × 4 G, 2 bursts × (makespan, p99, p99.9), 1 steady.
	require.Len(t, c.Rows, 7*sweepGs+6+1)
	// Sections are contiguous and in metricOrder.
	last := -1
	for _, r := range c.Rows {
		i := slices.Index(metricOrder, r.Metric)
		require.GreaterOrEqual(t, i, last, "row %s %s out of section order", r.Metric, r.Name)
		last = i
	}
}

func TestRunsWriteError(t *testing.T) {
	run := testRun(6)
	require.Error(t, Runs(run, run).Write(failWriter{}))
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func TestFormat(t *testing.T) {
	assert.Equal(t, "~", NoChange.String())
	assert.Equal(t, "too few samples", TooFewSamples.String())
	assert.Equal(t, "Outcome(9)", Outcome(9).String())
}

func TestRegressionsAndJSON(t *testing.T) {
	old := testRun(6)
	cur := clone(t, old)
	scaleSat(cur, 0.5, only(atomicMonotonic, 0))
	c := Runs(old, cur)
	reg := c.Regressions()
	require.Len(t, reg, sweepGs)
	for _, r := range reg {
		assert.Contains(t, r.Name, atomicMonotonic)
	}
	assert.Empty(t, Runs(old, old).Regressions())

	var buf bytes.Buffer
	require.NoError(t, c.WriteJSON(&buf))
	var got struct {
		Regressions int `json:"regressions"`
		Rows        []struct {
			Name    string   `json:"name"`
			Outcome string   `json:"outcome"`
			P       *float64 `json:"p"`
			Old     struct {
				Center float64 `json:"center"`
			} `json:"old"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got), buf.String())
	assert.Equal(t, sweepGs, got.Regressions)
	require.Len(t, got.Rows, len(c.Rows))
	for i, r := range got.Rows {
		assert.Equal(t, c.Rows[i].Name, r.Name)
		assert.Equal(t, c.Rows[i].Outcome.String(), r.Outcome)
		assert.Equal(t, math.IsNaN(float64(c.Rows[i].P)), r.P == nil, "NaN p is null: %s", r.Name)
	}
}

// TestIntervals: every side shows an interval that is finite and says
// what it is: the 95% CI of the median from 6 repeats on, the range of 2
// to 5 (the lab's default is 5) with the confidence it gives, none for one
// value; never "∞".
func TestIntervals(t *testing.T) {
	for _, tc := range []struct {
		n          int
		interval   Interval
		confidence float64
		text       string // in the cell
	}{
		{1, NoInterval, 0, ""},
		{2, Range, 0.5, " (range)"},
		{3, Range, 0.75, " (range)"},
		{5, Range, 0.9375, " (range)"},
		// At 6 the 95% interval of the median is the range too, at
		// 96.875%: the same figure benchmath gives.
		{6, MedianCI, 0.96875, ""},
		{12, MedianCI, 0, ""},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			vals := make([]float64, tc.n)
			for i := range vals {
				vals[i] = 100 + float64(i) // 100 … 100+n-1
			}
			res := analyse(vals, vals)
			st := stat(res.old, vals)
			assert.Equal(t, tc.interval, st.Interval)
			assert.Equal(t, tc.n, st.N)
			cell := formatStat(st, "IDs/s")
			assert.NotContains(t, cell, "∞")
			if tc.interval == NoInterval {
				assert.True(t, math.IsNaN(float64(st.Lo)) && math.IsNaN(float64(st.Hi)))
				assert.Zero(t, st.Confidence)
				assert.NotContains(t, cell, "±")
				return
			}
			assert.False(t, math.IsInf(float64(st.Lo), 0) || math.IsInf(float64(st.Hi), 0), "finite: %v..%v", st.Lo, st.Hi)
			assert.LessOrEqual(t, st.Lo, st.Center)
			assert.GreaterOrEqual(t, st.Hi, st.Center)
			if tc.confidence > 0 {
				assert.InDelta(t, tc.confidence, float64(st.Confidence), 1e-12)
			} else {
				assert.GreaterOrEqual(t, st.Confidence, 0.95)
			}
			if tc.interval == Range {
				assert.Equal(t, [2]float64{100, 100 + float64(tc.n-1)}, [2]float64{float64(st.Lo), float64(st.Hi)}, "min to max")
			}
			assert.Contains(t, cell, " ± "+st.CI+tc.text)
		})
	}
}

// TestDefaultRepeatsShowRanges: a comparison at the lab's default five
// repeats prints a finite spread on every repeated row and a legend that
// says what it is.
func TestDefaultRepeatsShowRanges(t *testing.T) {
	run := testRun(5)
	c := Runs(run, clone(t, run))
	var buf bytes.Buffer
	require.NoError(t, c.Write(&buf))
	out := buf.String()
	assert.NotContains(t, out, "∞")
	assert.Contains(t, out, "median ± its 95% confidence interval; Mann-Whitney U test, alpha=0.05\n"+
		"(range): 5 repeats are too few for a 95% interval: ± spans them, min to max, which holds the median with confidence 93.75% at n=5\n"+
		"no ±: one value per side (a percentile), no interval\n")
	for _, r := range rowsOf(c, "saturate IDs/s") {
		assert.Equal(t, Range, r.Old.Interval, r.Name)
		assert.Contains(t, out, formatStat(r.Old, r.Unit), r.Name)
	}

	buf.Reset()
	require.NoError(t, c.WriteJSON(&buf))
	var got struct {
		Rows []struct {
			Old struct {
				Lo, Hi     *float64
				Interval   string
				Confidence float64
			} `json:"old"`
			Metric string `json:"metric"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	for _, r := range got.Rows {
		if r.Metric != "saturate IDs/s" {
			continue
		}
		assert.Equal(t, "range", r.Old.Interval)
		assert.Equal(t, 0.9375, r.Old.Confidence)
		assert.NotNil(t, r.Old.Lo)
		assert.NotNil(t, r.Old.Hi)
	}
}

// TestNothingInCommon: runs that share no metric are an error that says
// what each measured, never an empty comparison that passes.
func TestNothingInCommon(t *testing.T) {
	sat := testRun(6)
	sat.Burst, sat.Steady = nil, nil
	steady := testRun(6)
	steady.Burst, steady.Saturate = nil, nil
	steady.Commit = "fedcba9"

	c := Runs(sat, steady)
	err := c.Err()
	require.ErrorIs(t, err, ErrNothingInCommon)
	assert.Regexp(t, `old \(commit abc1234\) measured saturate IDs/s ×\d+; new \(commit fedcba9\) measured steady p99 latency ×\d+$`, err.Error())

	empty := &result.Run{Schema: result.SchemaVersion}
	require.ErrorIs(t, Runs(empty, sat).Err(), ErrNothingInCommon)
	assert.ErrorContains(t, Runs(empty, sat).Err(), "old (commit —) measured nothing (no burst, saturate or steady result)")

	assert.NoError(t, Runs(sat, sat).Err())
}
