package compare

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	sweepFill   = 0.98 // fixture.Sweep's strict subjects' tick fill
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
		{"tick fill atomicgen/strict @G=1", sweepFill, false},
		{"tick fill atomicgen/strict @G=8", sweepFill, false},
		{"tick fill mutexgen/strict @G=1", sweepFill, false},
		{"tick fill mutexgen/strict @G=2", sweepFill, true}, // a contended lock
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
	assert.Len(t, rs, 3+2*sweepGs*2+3)
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
}
