package workload

import (
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

func TestFairnessFigures(t *testing.T) {
	// Judged only where every goroutine has a P: eight here.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	s, ok := sampleOf([]int64{4, 1, 1, 1}, time.Second)
	require.True(t, ok)
	assert.Equal(t, []float64{4.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7}, s.shares)
	// mean 1.75, population deviation sqrt(6.75/4)
	assert.InDelta(t, 100*math.Sqrt(6.75/4)/1.75, s.deviation, 1e-9)
	even, _ := sampleOf([]int64{5, 5, 5}, time.Second)
	assert.Zero(t, even.deviation)
	_, ok = sampleOf([]int64{7}, time.Second)
	assert.False(t, ok, "one goroutine has no share to compare")
	_, ok = sampleOf([]int64{0, 0}, time.Second)
	assert.False(t, ok, "no calls")

	// The median repeat's shares, every repeat's deviation.
	f := fairnessOf([]fairnessSample{{[]float64{.5, .5}, 0, time.Second}, {[]float64{.9, .1}, 80, time.Second}, {[]float64{.6, .4}, 20, time.Second}})
	assert.Equal(t, 20.0, f.DeviationPct)
	assert.Equal(t, []float64{.6, .4}, f.Shares)
	assert.Equal(t, []float64{0, 80, 20}, f.DeviationSamples)
	assert.False(t, f.Unfair)
	assert.True(t, fairnessOf([]fairnessSample{{[]float64{.9, .1}, unfairDeviationPct + 1, time.Second}}).Unfair)
	// Called together for less than a time slice: recorded, not judged.
	short := fairnessOf([]fairnessSample{{[]float64{1, 0}, 141, time.Millisecond}})
	assert.True(t, short.ShortWindow)
	assert.False(t, short.Unfair)
	// One starved goroutine among many: a small deviation, flagged
	// by its share.
	starved := []int64{100, 100, 100, 100, 100, 100, 100, 10}
	st, _ := sampleOf(starved, time.Second)
	assert.Less(t, st.deviation, float64(unfairDeviationPct))
	assert.True(t, fairnessOf([]fairnessSample{st}).Unfair)
	assert.Nil(t, fairnessOf(nil))
	// More goroutines than Ps: recorded, not judged.
	runtime.GOMAXPROCS(2)
	over := fairnessOf([]fairnessSample{{[]float64{.9, .1, 0}, 150, time.Second}})
	assert.True(t, over.OverCPUs)
	assert.False(t, over.Unfair)
}

// starving is a subject whose lock serves goroutine G-1 (the last caller
// Callers hands out) once for every passes calls the others make between
// them: deterministic starvation, counted in calls, not time. No call
// returns before every caller has made its first (so that all are
// calling at once however few the cores), and it lets the starved
// goroutine through freely once the others can make no more calls
// (favoured calls made, or total calls entered, where not 0), so that no
// run waits on a goroutine that has left. Where quota is not 0 each
// goroutine's quota-th call, its last, sleeps minFairWindow under the
// lock: the goroutines then call together for at least that long (the
// window opens before any first call returns), however fast the host.
type starving struct {
	mu                sync.Mutex
	wake              *sync.Cond
	g, passes         int
	favoured, entered int // calls the other goroutines made; calls entered by all
	favDone, total    int
	quota             int
	starved           int // calls the starved goroutine made
	next              uint64
	callers           int
	arrived           int // callers that have made their first call
}

func starvingSubject(g, passes, favDone, total, quota int) subject.Subject {
	return subject.Subject{Name: "starving", Order: subject.OrderNone,
		Decode: func(id subject.ID) (time.Time, int) { return time.UnixMilli(int64(id.Lo >> 22)), 0 },
		New: func() (subject.Minter, error) {
			s := &starving{g: g, passes: passes, favDone: favDone, total: total, quota: quota}
			s.wake = sync.NewCond(&s.mu)
			return s, nil
		}}
}

func (s *starving) Next() (subject.ID, error) { return s.call(false, false, false) }

func (s *starving) NewCaller() subject.Minter {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callers++
	return &starvingCaller{s: s, starved: s.callers == s.g}
}

type starvingCaller struct {
	s       *starving
	starved bool
	calls   int // made so far
}

func (c *starvingCaller) Next() (subject.ID, error) {
	c.calls++
	return c.s.call(c.starved, c.calls == 1, c.calls == c.s.quota)
}

func (s *starving) call(starved, first, last bool) (subject.ID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entered++
	if first {
		s.arrived++
	}
	s.wake.Broadcast()
	for s.arrived < s.g {
		s.wake.Wait()
	}
	if starved {
		for s.favoured < s.passes*(s.starved+1) && (s.favDone == 0 || s.favoured < s.favDone) &&
			(s.total == 0 || s.entered < s.total) {
			s.wake.Wait()
		}
		s.starved++
	} else {
		s.favoured++
		s.wake.Broadcast()
	}
	if last {
		time.Sleep(minFairWindow)
	}
	s.next++
	return subject.ID{Lo: s.next << 22}, nil
}

// TestUnfairSubjectFlagged plants a starved goroutine in each workload:
// the lab must flag it, whatever the host's scheduling did to the others.
func TestUnfairSubjectFlagged(t *testing.T) {
	const g, passes = 4, 32
	// Fairness is judged where every goroutine has a P.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(g, runtime.GOMAXPROCS(0))))
	// Burst: 4 x 2,000 IDs; the favoured three make 6,000 calls in all.
	b, err := Burst(starvingSubject(g, passes, (g-1)*2000, 0, 2000), BurstConfig{IDs: g * 2000, Goroutines: g, Repeats: 2, Pause: time.Millisecond}, false, nil)
	require.NoError(t, err)
	require.NotNil(t, b.Fairness)
	assertStarved(t, "burst", *b.Fairness, g, passes)

	// Saturate: buffers of 2,000 each fill long before the 10 minutes end.
	// The starved goroutine gets at most 1/33 of the calls, 0.12 of a
	// fair share: under starvedShare by construction.
	cfg := SaturateConfig{Duration: MaxDuration, Repeats: 2, MaxIDs: g * 2000, SampleEvery: 1}
	sat, err := saturate(starvingSubject(g, passes, (g-1)*2000, 0, 2000), g, cfg)
	require.NoError(t, err)
	require.NotNil(t, sat.Fairness)
	assertStarved(t, "saturate", *sat.Fairness, g, passes)

	// Steady: 20,000 calls at 1M/s over four workers; the last is due
	// 20 ms after the first.
	st, err := Steady(starvingSubject(g, passes, 0, 20_000, 0), SteadyConfig{Rate: 1e6, Duration: 20 * time.Millisecond, Workers: g})
	require.NoError(t, err)
	require.NotNil(t, st.Fairness)
	assertStarved(t, "steady", *st.Fairness, g, passes)
}

// assertStarved checks that f flags the starved goroutine (the last): its
// share is at most what the others' calls let through (a pass per passes
// of theirs, and the one it was waiting for), under half a fair share.
func assertStarved(t *testing.T, where string, f result.Fairness, g, passes int) {
	t.Helper()
	t.Logf("%s: shares %.3f, deviation %.0f%%, min %.3f", where, f.Shares, f.DeviationPct, f.MinShare)
	assert.True(t, f.Unfair, "%s: the starved goroutine flagged", where)
	require.Len(t, f.Shares, g)
	last := f.Shares[g-1]
	others := 1 - last
	assert.LessOrEqual(t, last, others/float64(passes)+0.01, "%s: the last goroutine let through once per %d", where, passes)
	assert.LessOrEqual(t, f.MinShare, last, "%s: the least share at most the starved one's (a favoured goroutine the host did not run may have less)", where)
}
