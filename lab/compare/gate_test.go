package compare

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

func ratioMap(rs []Ratio) map[string]Ratio {
	m := map[string]Ratio{}
	for _, r := range rs {
		m[r.Name] = r
	}
	return m
}

func TestRatios(t *testing.T) {
	rs := ratioMap(Ratios(testRun(6)))
	tests := []struct {
		name    string
		want    float64
		samples int
	}{
		{"atomic/mutex strict @G=1", 0.99 / 0.985, 6},
		{"atomic/mutex strict @G=max", 0.99 / 0.985, 6},
		{"atomic/mutex monotonic @G=1", 2, 6},
		{"atomic/mutex monotonic @G=max", 2, 6},
		{"sharded scaling", 8, 6},
		{"ceiling fraction atomicgen/strict @G=1", 0.99, 6},
		{"ceiling fraction atomicgen/strict @G=2", 0.99, 6},
		{"ceiling fraction atomicgen/strict @G=8", 0.99, 6},
		{"ceiling fraction mutexgen/strict @G=1", 0.985, 6},
		{"ceiling fraction mutexgen/strict @G=8", 0.985, 6},
	}
	for _, tc := range tests {
		r, ok := rs[tc.name]
		if !ok {
			t.Errorf("no ratio %q", tc.name)
			continue
		}
		// Jitter is ±2% per repeat.
		if math.Abs(r.Value/tc.want-1) > 0.05 {
			t.Errorf("%s = %.4f, want ≈ %.4f", tc.name, r.Value, tc.want)
		}
		if len(r.Samples) != tc.samples {
			t.Errorf("%s: %d samples, want %d", tc.name, len(r.Samples), tc.samples)
		}
	}
	// 5 pair ratios + 2 strict subjects × 4 goroutine counts; none for
	// the monotonic subjects, which have no ceiling.
	if len(rs) != 5+2*len(testGs) {
		t.Errorf("%d ratios, want %d: %v", len(rs), 5+2*len(testGs), rs)
	}
	if !rs["atomic/mutex monotonic @G=max"].Informational {
		t.Error("the contended monotonic pair must not be gated")
	}
	for name := range rs {
		if strings.Contains(name, "ceiling fraction") && strings.Contains(name, "monotonic") {
			t.Errorf("ceiling fraction for a non-strict subject: %s", name)
		}
	}
}

func TestRatiosMedianFallback(t *testing.T) {
	run := testRun(6)
	// Different repeat counts: no per-repeat ratios, ratio of medians.
	for i := range run.Saturate {
		if run.Saturate[i].Subject == mutexMonotonic {
			run.Saturate[i].Samples = run.Saturate[i].Samples[:5]
		}
	}
	// No samples at all: IDsPerSec.
	for i := range run.Saturate {
		if run.Saturate[i].Subject == shardedScaling {
			run.Saturate[i].Samples = nil
		}
	}
	rs := ratioMap(Ratios(run))
	am := rs["atomic/mutex monotonic @G=max"]
	if am.Samples != nil || math.Abs(am.Value/2-1) > 0.05 {
		t.Errorf("atomic/mutex monotonic = %+v, want ≈2 without samples", am)
	}
	sh := rs["sharded scaling"]
	if sh.Samples != nil || math.Abs(sh.Value/8-1) > 0.05 {
		t.Errorf("sharded scaling = %+v, want ≈8 without samples", sh)
	}
}

// TestRatiosScaleInvariant is the cross-machine property: scale every
// figure by one factor (a machine k times faster, its ceiling too) and
// no ratio moves.
func TestRatiosScaleInvariant(t *testing.T) {
	base := testRun(6)
	want := ratioMap(Ratios(base))
	for _, f := range []float64{0.5, 1.37, 2, 3} {
		run := clone(t, base)
		scaleSat(run, f, nil)
		for i := range run.Subjects {
			run.Subjects[i].CeilingIDs *= f
		}
		got := ratioMap(Ratios(run))
		if len(got) != len(want) {
			t.Fatalf("×%g: %d ratios, want %d", f, len(got), len(want))
		}
		for name, w := range want {
			g := got[name]
			if math.Abs(g.Value/w.Value-1) > 1e-12 {
				t.Errorf("×%g: %s = %v, want %v", f, name, g.Value, w.Value)
			}
			for i := range w.Samples {
				if math.Abs(g.Samples[i]/w.Samples[i]-1) > 1e-12 {
					t.Errorf("×%g: %s sample %d = %v, want %v", f, name, i, g.Samples[i], w.Samples[i])
				}
			}
		}
		if rep := mustGate(t, base, run, 0); !rep.OK() {
			var buf bytes.Buffer
			rep.Write(&buf)
			t.Errorf("×%g: gate failed a uniformly scaled run:\n%s", f, buf.String())
		}
	}
}

func TestGate(t *testing.T) {
	tests := []struct {
		name      string
		n         int               // repeats
		tolerance float64           // 0: default
		prep      func(*result.Run) // applied to both runs
		mutate    func(*result.Run) // applied to the new run
		ok        bool
		failed    []string // ratios that fail
		text      []string // in Write's output
	}{
		{
			name: "identical", n: 6, mutate: func(*result.Run) {}, ok: true,
			text: []string{"ok ~ (p=1.000 n=6+6)", "correctness: ok", "gate: PASS", "tolerance 15%"},
		},
		{
			// Twice as fast, on another CPU with more Ps: the monotonic
			// subjects double, the strict ones stay at the ceiling.
			name: "2x faster machine", n: 6,
			mutate: func(r *result.Run) {
				r.Host.CPU, r.Host.GOMAXPROCS = "Faster CPU", 16
				scaleSat(r, 2, func(s string, g int) bool { return s != atomicStrict && s != mutexStrict })
				for i := range r.Saturate {
					s := &r.Saturate[i]
					if s.Subject == atomicStrict || s.Subject == mutexStrict {
						for j := range s.Samples {
							s.Samples[j] = min(2*s.Samples[j], 0.99*testCeiling*(1+jitter[j]/10))
						}
					}
				}
			},
			ok:   true,
			text: []string{"hosts differ", "gate: PASS"},
		},
		{
			name: "atomic monotonic -30%", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(atomicMonotonic, 1)) },
			failed: []string{"atomic/mutex monotonic @G=1"},
			text:   []string{"FAIL: -30.0%, worse than -15% and significant (p=0.002 n=6+6)", "gate: FAIL (1 ratio(s): atomic/mutex monotonic @G=1)"},
		},
		{
			name: "contended monotonic -30% is reported, not gated", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(atomicMonotonic, 8)) },
			ok:     true,
			text:   []string{"info, not gated: -30.0%", "gate: PASS"},
		},
		{
			name: "atomic monotonic -10% is within tolerance", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.9, only(atomicMonotonic, 1)) },
			ok:     true,
			text:   []string{"ok -10.0% worse, within 15% (p=0.002 n=6+6)"},
		},
		{
			name: "atomic monotonic -10% fails a 5% tolerance", n: 6, tolerance: 0.05,
			mutate: func(r *result.Run) { scaleSat(r, 0.9, only(atomicMonotonic, 1)) },
			failed: []string{"atomic/mutex monotonic @G=1"},
			text:   []string{"tolerance 5%"},
		},
		{
			name: "sharded stops scaling", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(shardedScaling, 8)) },
			failed: []string{"sharded scaling"},
		},
		{
			name: "mutex monotonic slower is not a regression of the ratio", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.5, only(mutexMonotonic, 8)) },
			ok:     true,
			text:   []string{"+100.0% better"},
		},
		{
			name: "atomic strict -30% at G=8", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(atomicStrict, 8)) },
			failed: []string{"atomic/mutex strict @G=max", "ceiling fraction atomicgen/strict @G=8"},
			text:   []string{"below base×(1-tolerance)"},
		},
		{
			name: "-30% but not significant", n: 6,
			prep: func(r *result.Run) {
				setSamples(r, mutexMonotonic, 8, []float64{1e7, 1e7, 1e7, 1e7, 1e7, 1e7})
				setSamples(r, atomicMonotonic, 8, []float64{1.2e7, 1.5e7, 2.0e7, 2.0e7, 2.5e7, 2.8e7})
			},
			mutate: func(r *result.Run) {
				setSamples(r, atomicMonotonic, 8, []float64{1.1e7, 1.3e7, 1.4e7, 1.4e7, 2.4e7, 2.7e7})
			},
			ok:   true,
			text: []string{"ok: -30.0% but not significant (p=0."},
		},
		{
			name: "-30% with too few samples fails on the threshold", n: 3,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(atomicMonotonic, 1)) },
			failed: []string{"atomic/mutex monotonic @G=1"},
			text:   []string{"too few samples to test, threshold alone decides"},
		},
		{
			name: "recorded correctness failure", n: 6,
			mutate: func(r *result.Run) { r.Failures = []string{"mutexgen/strict: 3 duplicate IDs"} },
			text:   []string{"correctness: FAIL (1)", "mutexgen/strict: 3 duplicate IDs", "1 correctness failure(s)"},
		},
		{
			name: "failed check", n: 6,
			mutate: func(r *result.Run) {
				r.Saturate[5].Check.Duplicates = 2
				r.Burst[1].Check.Errors, r.Burst[1].Check.FirstError = 1, "clock went back"
				r.Steady[0].Check.OrderViolations = 4
			},
			text: []string{
				"saturate mutexgen/strict G=2: FAIL: 2 duplicates",
				"burst atomicgen/strict NextIDs G=8: FAIL: 1 error (first: clock went back)",
				"steady atomicgen/strict @1M/s: FAIL: 4 order violations",
				"correctness: FAIL (3)",
			},
		},
		{
			name: "ratio missing from new", n: 6,
			mutate: func(r *result.Run) { dropSubject(r, shardedScaling) },
			failed: []string{"sharded scaling"},
			text:   []string{"sharded scaling", "missing", "FAIL: missing from new run"},
		},
		{
			name: "ratio missing from base", n: 6,
			prep:   func(r *result.Run) { dropSubject(r, shardedScaling) },
			mutate: func(r *result.Run) { r.Saturate = append(r.Saturate, testRun(6).Saturate[16:]...) },
			ok:     true,
			text:   []string{"missing from base (not gated)", "gate: PASS"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := testRun(tc.n)
			if tc.prep != nil {
				tc.prep(base)
			}
			new := clone(t, base)
			tc.mutate(new)
			rep := mustGate(t, base, new, tc.tolerance)
			var buf bytes.Buffer
			if err := rep.Write(&buf); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if rep.OK() != tc.ok {
				t.Errorf("OK() = %v, want %v:\n%s", rep.OK(), tc.ok, out)
			}
			if got := rep.Failed(); !slices.Equal(got, tc.failed) {
				t.Errorf("failed ratios %q, want %q:\n%s", got, tc.failed, out)
			}
			for _, w := range tc.text {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			// Every ratio is named with base, new, change and verdict.
			for _, r := range rep.Rows {
				if !strings.Contains(out, r.Name) || r.Verdict == "" {
					t.Errorf("ratio %q not reported (verdict %q)", r.Name, r.Verdict)
				}
			}
			for _, f := range tc.failed {
				if !strings.Contains(out, f) {
					t.Errorf("output does not name failed ratio %q", f)
				}
			}
			if !tc.ok && !strings.Contains(out, "gate: FAIL") || tc.ok && !strings.Contains(out, "gate: PASS") {
				t.Errorf("overall line wrong:\n%s", out)
			}
		})
	}
}

func mustGate(t *testing.T, base, new *result.Run, tol float64) GateReport {
	t.Helper()
	rep, err := Gate(base, new, tol)
	require.NoError(t, err)
	return rep
}

func TestGateDefaultTolerance(t *testing.T) {
	run := testRun(6)
	assert.Equal(t, DefaultTolerance, mustGate(t, run, run, 0).Tolerance)
}

// TestGateRefusesNonsenseTolerance: a tolerance that is not a fraction
// would pass anything (NaN compares false with every floor; 1 or more
// lets a ratio fall to zero), so Gate refuses it instead of passing.
func TestGateRefusesNonsenseTolerance(t *testing.T) {
	run := testRun(6)
	for _, tol := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.1, -1, 1, 1.5} {
		_, err := Gate(run, run, tol)
		assert.ErrorIs(t, err, ErrTolerance, "tolerance %v", tol)
		assert.ErrorContains(t, err, fmt.Sprint(tol), "the error names the value")
	}
	for _, tol := range []float64{0.01, DefaultTolerance, 0.99} {
		assert.NoError(t, CheckTolerance(tol), "tolerance %v", tol)
	}
}

// TestGateFailsWhenNothingCompared: a baseline sharing no ratio with the
// run (an empty {"schema":1} file, or one from another suite) leaves every
// ratio "missing from base"; that is no evidence of anything, so the gate
// fails and says why.
func TestGateFailsWhenNothingCompared(t *testing.T) {
	for name, base := range map[string]*result.Run{
		"empty baseline":  {Schema: result.SchemaVersion},
		"no shared ratio": func() *result.Run { r := testRun(6); r.Saturate = nil; return r }(),
	} {
		t.Run(name, func(t *testing.T) {
			rep := mustGate(t, base, testRun(6), 0)
			assert.Zero(t, rep.Compared())
			assert.False(t, rep.OK())
			assert.ErrorIs(t, rep.Err(), ErrNothingGated)
			var buf bytes.Buffer
			require.NoError(t, rep.Write(&buf))
			assert.Contains(t, buf.String(), "gate: FAIL")
			assert.Contains(t, buf.String(), "compared no ratio")
		})
	}
	// Informational ratios alone do not make a comparison.
	base, cur := testRun(6), testRun(6)
	keep := func(r *result.Run) {
		r.Saturate = slices.DeleteFunc(r.Saturate, func(s result.SaturateResult) bool {
			return s.Subject != atomicMonotonic && s.Subject != mutexMonotonic || s.Goroutines == 1
		})
		r.Subjects = nil
	}
	keep(base)
	keep(cur)
	rep := mustGate(t, base, cur, 0)
	require.NotEmpty(t, rep.Rows)
	assert.False(t, rep.OK(), "only the informational ratio was in both runs")
}

func TestGateWriteError(t *testing.T) {
	run := testRun(6)
	if err := mustGate(t, run, run, 0).Write(failWriter{}); err == nil {
		t.Fatal("Write to a failing writer returned nil")
	}
}

func setSamples(r *result.Run, subject string, g int, samples []float64) {
	for i := range r.Saturate {
		s := &r.Saturate[i]
		if s.Subject == subject && s.Goroutines == g {
			s.Samples = slices.Clone(samples)
			s.IDsPerSec = stats.Median(samples)
		}
	}
}

func dropSubject(r *result.Run, subject string) {
	r.Saturate = slices.DeleteFunc(r.Saturate, func(s result.SaturateResult) bool { return s.Subject == subject })
}
