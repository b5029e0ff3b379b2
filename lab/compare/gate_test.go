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
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

func ratioMap(rs []Ratio) map[string]Ratio {
	m := map[string]Ratio{}
	for _, r := range rs {
		m[r.Name] = r
	}
	return m
}

const (
	overLimit   = "atomicgen/monotonic ns/ID over limit/clock+cas @G=1"
	shardedOver = "shardedgen/node-per-shard/monotonic ns/ID over limit/per-p @G=1"
	scaling8    = "sharded scaling @G=8"
)

func TestRatios(t *testing.T) {
	rs := ratioMap(Ratios(testRun(6)))
	tests := []struct {
		name string
		want float64
		info bool
	}{
		// The fixture's generators mint 0.8× (mutexgen 0.4×) their
		// limit's IDs/s: 1.25× (2.5×) its time per ID.
		{overLimit, 1.25, false},
		{shardedOver, 1.25, false},
		{scaling8, 1, false},
		{"mutexgen/monotonic ns/ID over limit/clock+cas @G=1", 2.5, true},
		{"atomic/mutex monotonic @G=1", 2, true},
		{"atomic/mutex monotonic @G=8", 2, true},
		{"tick fill atomicgen/strict @G=1", fixture.SweepFill, false},
		{"tick fill atomicgen/strict @G=8", fixture.SweepFill, false},
		{"tick fill mutexgen/strict @G=1", fixture.SweepFill, false},
		{"tick fill mutexgen/strict @G=2", fixture.SweepFill, true}, // a contended lock
		{"ceiling fraction atomicgen/strict @G=1", 0.99, true},
		{"ceiling fraction mutexgen/strict @G=8", 0.985, true},
	}
	for _, tc := range tests {
		r, ok := rs[tc.name]
		if !assert.True(t, ok, "no ratio %q", tc.name) {
			continue
		}
		// Jitter is ±2% per repeat.
		assert.InEpsilon(t, tc.want, r.Value, 0.05, tc.name)
		assert.Len(t, r.Samples, 6, tc.name)
		assert.Equal(t, tc.info, r.Informational, tc.name)
		assert.Equal(t, tc.info, r.Why != "", "%s: an informational ratio says why", tc.name)
		assert.Equal(t, strings.Contains(tc.name, " ns/ID over "), r.LowerIsBetter, "%s: a cost is lower-is-better, and only a cost", tc.name)
	}
	// 3 gated quotients + 2 strict subjects × 4 G × (tick fill, ceiling
	// fraction) + 3 informational quotients; nothing for the limits
	// themselves, and no tick fill for a monotonic generator.
	assert.Len(t, rs, 3+2*len(fixture.SweepGs)*2+3)
	for name := range rs {
		assert.False(t, strings.HasPrefix(name, "tick fill") && strings.Contains(name, "monotonic"), name)
		assert.False(t, strings.HasPrefix(name, "limit/"), name)
	}
}

// TestRatiosLeaveOutPeers: the gate reads snowlab's generators only.
func TestRatiosLeaveOutPeers(t *testing.T) {
	run := testRun(6)
	for i := range run.Subjects {
		run.Subjects[i].Peer = !run.Subjects[i].Physical
	}
	for _, r := range Ratios(run) {
		assert.True(t, strings.HasPrefix(r.Name, "atomic/mutex") || strings.HasPrefix(r.Name, "sharded scaling"),
			"%s: only the ratios that name snowlab's subjects remain", r.Name)
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
	am := rs["atomic/mutex monotonic @G=8"]
	assert.Nil(t, am.Samples)
	assert.InEpsilon(t, 2, am.Value, 0.05)
	sh := rs[scaling8]
	assert.Nil(t, sh.Samples)
	assert.InEpsilon(t, 1, sh.Value, 0.05)
}

// TestRatiosHoldOnAnotherHost is the property the gate rests on: a host
// that gives every subject k times the throughput (a faster machine, or
// one lent to another process, which slows the limit subjects alike), or
// that runs fewer goroutines in parallel (the sharded generator and the
// per-P limit both stop scaling), moves no gated ratio.
func TestRatiosHoldOnAnotherHost(t *testing.T) {
	base := testRun(6)
	want := ratioMap(Ratios(base))
	for _, f := range []float64{0.5, 1.37, 2, 3} {
		run := clone(t, base)
		scaleSat(run, f, nil)
		got := ratioMap(Ratios(run))
		require.Len(t, got, len(want))
		for name, w := range want {
			if strings.HasPrefix(name, "ceiling fraction") {
				continue // the ceiling does not scale: reported, not gated
			}
			g := got[name]
			assert.InEpsilon(t, w.Value, g.Value, 1e-12, "×%g: %s", f, name)
			for i := range w.Samples {
				assert.InEpsilon(t, w.Samples[i], g.Samples[i], 1e-12, "×%g: %s sample %d", f, name, i)
			}
		}
		rep := mustGate(t, base, run, 0)
		assert.True(t, rep.OK(), "×%g: gate failed a uniformly scaled run:\n%s", f, gateText(t, rep))
	}
	// One core: nothing scales past G=1, sharded or limit.
	run := clone(t, base)
	for i := range run.Saturate {
		s := &run.Saturate[i]
		f := 1 / float64(s.Goroutines)
		if s.Subject != shardedScaling && s.Subject != subject.LimitPerP {
			f = 1
		}
		for j := range s.Samples {
			s.Samples[j] *= f
		}
		s.IDsPerSec *= f
	}
	run.Host.GOMAXPROCS = 1
	assert.InEpsilon(t, 1, ratioMap(Ratios(run))[scaling8].Value, 0.05)
	assert.True(t, mustGate(t, base, run, 0).OK())
}

func gateText(t *testing.T, rep GateReport) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, rep.Write(&buf))
	return buf.String()
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
			text: []string{"ok ~ (p=1.000 n=6+6)", "correctness: ok", "gate: PASS", "tolerance 25%"},
		},
		{
			// Twice as fast, on another CPU with more Ps: the monotonic
			// subjects and the limits double, the strict ones stay at the
			// ceiling with the same tick fill.
			name: "2x faster machine", n: 6,
			mutate: func(r *result.Run) {
				r.Host.CPU, r.Host.GOMAXPROCS = "Faster CPU", 16
				scaleSat(r, 2, func(s string, g int) bool { return !strings.HasSuffix(s, "/strict") })
			},
			ok:   true,
			text: []string{"hosts differ", "gate: PASS"},
		},
		{
			// The host lost the strict generators half their ticks: the
			// raw ceiling fraction halves, the tick fill does not.
			name: "busy host", n: 6,
			mutate: func(r *result.Run) {
				scaleSat(r, 0.5, nil)
			},
			ok:   true,
			text: []string{"info, not gated: -50.0%", "gate: PASS", "not gated: ceiling fraction"},
		},
		{
			// 0.7× the IDs/s: 1/0.7 = 1.429× the time per ID, past the
			// 1/0.75 = 1.333× a 25% tolerance allows.
			name: "atomic monotonic 30% slower: its cost over its limit up 42.9%", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(atomicMonotonic, 1)) },
			failed: []string{overLimit},
			text: []string{"1.254×  1.791×  +42.9%  FAIL: +42.9%, worse than +33% and significant (p=0.002 n=6+6)",
				"gate: FAIL (1 ratio(s): " + overLimit + ")",
				"ns/ID over a limit: the generator's time per ID over the limit's, 1× is the limit, lower is better (fails above 1.33× the base)"},
		},
		{
			// 0.76× the IDs/s: a cost 1.316× the base's, under 1.333×.
			name: "atomic monotonic 24% slower is within tolerance", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.76, only(atomicMonotonic, 1)) },
			ok:     true,
			text:   []string{"ok +31.6% worse, within +33% (p=0.002 n=6+6)"},
		},
		{
			name: "atomic monotonic faster: its cost down", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 1.25, only(atomicMonotonic, 1)) },
			ok:     true,
			text:   []string{"ok -20.0% better (p=0.002 n=6+6)"},
		},
		{
			name: "contended monotonic -30% is reported, not gated", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(atomicMonotonic, 8)) },
			ok:     true,
			text:   []string{"info, not gated: -30.0%", "gate: PASS"},
		},
		{
			name: "atomic monotonic 10% slower is within tolerance", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.9, only(atomicMonotonic, 1)) },
			ok:     true,
			text:   []string{"ok +11.1% worse, within +33% (p=0.002 n=6+6)"},
		},
		{
			name: "atomic monotonic 10% slower fails a 5% tolerance", n: 6, tolerance: 0.05,
			mutate: func(r *result.Run) { scaleSat(r, 0.9, only(atomicMonotonic, 1)) },
			failed: []string{overLimit},
			text:   []string{"tolerance 5%"},
		},
		{
			name: "sharded stops scaling", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(shardedScaling, 8)) },
			failed: []string{scaling8},
		},
		{
			name: "the per-P limit stops scaling with it: the host's doing", n: 6,
			mutate: func(r *result.Run) {
				scaleSat(r, 0.7, only(shardedScaling, 8))
				scaleSat(r, 0.7, only(subject.LimitPerP, 8))
			},
			ok: true,
		},
		{
			name: "mutex monotonic slower is not a regression of the ratio", n: 6,
			mutate: func(r *result.Run) { scaleSat(r, 0.5, only(mutexMonotonic, 8)) },
			ok:     true,
			text:   []string{"+100.0% better"},
		},
		{
			name: "atomic strict fills 30% less of its ticks at G=8", n: 6,
			mutate: func(r *result.Run) { scaleFill(r, 0.7, atomicStrict, 8) },
			failed: []string{"tick fill atomicgen/strict @G=8"},
			text:   []string{"FAIL: -30.0%, worse than -25% and significant"},
		},
		{
			name: "-30% but not significant", n: 6,
			prep: func(r *result.Run) {
				setSamples(r, subject.LimitClockCAS, 1, []float64{1e7, 1e7, 1e7, 1e7, 1e7, 1e7})
				setSamples(r, atomicMonotonic, 1, []float64{1.2e7, 1.5e7, 2.0e7, 2.0e7, 2.5e7, 2.8e7})
			},
			mutate: func(r *result.Run) {
				setSamples(r, atomicMonotonic, 1, []float64{1.1e7, 1.3e7, 1.4e7, 1.4e7, 2.4e7, 2.7e7})
			},
			ok:   true,
			text: []string{"ok: -30.0% but not significant (p=0."},
		},
		{
			name: "-30% with too few samples fails on the threshold", n: 3,
			mutate: func(r *result.Run) { scaleSat(r, 0.7, only(atomicMonotonic, 1)) },
			failed: []string{overLimit},
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
				r.Saturate[5].Check.Duplicates = 2 // mutexgen/strict G=2
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
			failed: []string{shardedOver, scaling8},
			text:   []string{scaling8, "missing", "FAIL: missing from new run"},
		},
		{
			name: "ratio missing from base", n: 6,
			prep: func(r *result.Run) { dropSubject(r, shardedScaling) },
			mutate: func(r *result.Run) {
				r.Saturate = append(r.Saturate, slices.DeleteFunc(testRun(6).Saturate, func(s result.SaturateResult) bool {
					return s.Subject != shardedScaling
				})...)
			},
			ok:   true,
			text: []string{"missing from base (not gated)", "gate: PASS"},
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
			out := gateText(t, rep)
			assert.Equal(t, tc.ok, rep.OK(), out)
			assert.Equal(t, tc.failed, rep.Failed(), out)
			for _, w := range tc.text {
				assert.Contains(t, out, w)
			}
			// Every ratio is named with base, new, change and verdict.
			for _, r := range rep.Rows {
				assert.Contains(t, out, r.Name)
				assert.NotEmpty(t, r.Verdict, r.Name)
			}
			if tc.ok {
				assert.Contains(t, out, "gate: PASS")
			} else {
				assert.Contains(t, out, "gate: FAIL")
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
			out := gateText(t, rep)
			assert.Contains(t, out, "gate: FAIL")
			assert.Contains(t, out, "compared no ratio")
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
	require.Error(t, mustGate(t, run, run, 0).Write(failWriter{}))
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

func scaleFill(r *result.Run, f float64, subject string, g int) {
	for i := range r.Saturate {
		s := &r.Saturate[i]
		if s.Subject == subject && s.Goroutines == g {
			for j := range s.TickFill {
				s.TickFill[j] *= f
			}
		}
	}
}

func dropSubject(r *result.Run, subject string) {
	r.Saturate = slices.DeleteFunc(r.Saturate, func(s result.SaturateResult) bool { return s.Subject == subject })
}

func TestGateJSON(t *testing.T) {
	base := testRun(6)
	cur := clone(t, base)
	scaleSat(cur, 0.7, only(atomicMonotonic, 1))
	dropSubject(cur, shardedScaling)
	rep := mustGate(t, base, cur, 0)
	var buf bytes.Buffer
	require.NoError(t, rep.WriteJSON(&buf))
	var got struct {
		Pass   bool     `json:"pass"`
		Error  string   `json:"error"`
		Failed []string `json:"failed"`
		Rows   []struct {
			Name  string   `json:"name"`
			New   *float64 `json:"new"`
			Lower bool     `json:"lower_is_better"`
			Gated bool     `json:"gated"`
			Why   string   `json:"why_not_gated"`
			Fail  bool     `json:"fail"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got), buf.String())
	assert.False(t, got.Pass)
	assert.Equal(t, rep.Failed(), got.Failed)
	assert.Contains(t, got.Error, overLimit)
	require.Len(t, got.Rows, len(rep.Rows))
	for i, r := range got.Rows {
		row := rep.Rows[i]
		assert.Equal(t, row.Name, r.Name)
		assert.Equal(t, row.Fail, r.Fail, r.Name)
		assert.Equal(t, !row.HasNew, r.New == nil, "a missing side is null: %s", r.Name)
		assert.Equal(t, row.Informational, r.Why != "", r.Name)
		assert.Equal(t, row.LowerIsBetter, r.Lower, r.Name)
	}
	assert.True(t, rep.Rows[0].LowerIsBetter, "%s is a cost", rep.Rows[0].Name)
}

// TestCheckBaseline: a run the gate can read passes; one with no gated
// ratio is refused, saying what it measured.
func TestCheckBaseline(t *testing.T) {
	assert.NoError(t, CheckBaseline(testRun(6)))
	run := testRun(6)
	run.Saturate = nil
	err := CheckBaseline(run)
	require.ErrorIs(t, err, ErrNoGatedRatio)
	assert.Regexp(t, `\(commit abc1234 measured burst makespan ×\d+, burst p99 latency ×\d+, burst p99.9 latency ×\d+, steady p99 latency ×\d+\)$`, err.Error())
	assert.ErrorContains(t, CheckBaseline(&result.Run{}), "measured nothing")
}
