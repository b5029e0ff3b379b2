package workload

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/limit"
	"github.com/snowlab/snowlab/lab/subject"
)

func ownSubject(t *testing.T, name string) subject.Subject {
	t.Helper()
	own := subject.Own(1)
	i := slices.IndexFunc(own, func(s subject.Subject) bool { return s.Name == name })
	require.NotEqual(t, -1, i, "no subject %q", name)
	return own[i]
}

func TestBurstOwn(t *testing.T) {
	for _, name := range []string{"mutexgen/strict", "atomicgen/monotonic", "shardedgen/node-per-shard/strict"} {
		for _, batch := range []bool{false, true} {
			s := ownSubject(t, name)
			r, err := Burst(s, BurstConfig{IDs: 20_000, Goroutines: 8, Repeats: 2, Pause: time.Millisecond}, batch, nil)
			require.NoError(t, err)
			assert.True(t, r.Check.OK(), "%s: %+v", name, r.Check)
			assert.Equal(t, 40_000, r.Check.IDs)
			assert.Len(t, r.MakespanNs, 2)
			assert.Len(t, r.Ticks, 2)
			assert.Positive(t, r.IDsPerSec)
			if s.Strict {
				assert.Equal(t, (20_000+4096*s.Nodes-1)/(4096*s.Nodes), r.MinTicks)
				for _, ticks := range r.Ticks {
					assert.GreaterOrEqual(t, ticks, r.MinTicks, "a strict generator cannot span fewer ticks than the layout allows")
				}
				assert.LessOrEqual(t, r.Check.MaxPerTickNode, 4096)
			}
			if batch {
				assert.Equal(t, int64(16), r.Latency.Count, "one latency per batch call")
			} else {
				assert.Equal(t, int64(40_000), r.Latency.Count)
			}
		}
	}
}

func TestSaturateOwn(t *testing.T) {
	s := ownSubject(t, "atomicgen/strict")
	r, err := saturate(s, 2, SaturateConfig{Duration: 20 * time.Millisecond, Repeats: 2})
	require.NoError(t, err)
	assert.True(t, r.Check.OK(), "%+v", r.Check)
	assert.Len(t, r.Samples, 2)
	assert.Positive(t, r.IDsPerSec)
	assert.Positive(t, r.CeilingPct)
	assert.Positive(t, r.Latency.Count)
	// One fill per repeat; a strict generator never mints more than its
	// slots hold.
	require.Len(t, r.TickFill, 2)
	for _, f := range r.TickFill {
		assert.Greater(t, f, 0.0)
		assert.LessOrEqual(t, f, 1.0)
	}
}

// TestSaturateSweepInterleaves: round r measures every point once before
// round r+1 starts, and the results come back per subject, then per G.
func TestSaturateSweepInterleaves(t *testing.T) {
	subs := []subject.Subject{ownSubject(t, "atomicgen/monotonic"), ownSubject(t, "shardedgen/split-sequence/strict")}
	var order []string
	res, err := SaturateSweep(subs, SaturateConfig{Goroutines: []int{1, 2}, Duration: 2 * time.Millisecond, Repeats: 2},
		func(s subject.Subject, g, r int) { order = append(order, fmt.Sprintf("%s x%d #%d", s.Name, g, r)) })
	require.NoError(t, err)
	assert.Equal(t, []string{
		"atomicgen/monotonic x1 #0", "atomicgen/monotonic x2 #0",
		"shardedgen/split-sequence/strict x1 #0", "shardedgen/split-sequence/strict x2 #0",
		"atomicgen/monotonic x1 #1", "atomicgen/monotonic x2 #1",
		"shardedgen/split-sequence/strict x1 #1", "shardedgen/split-sequence/strict x2 #1",
	}, order)
	require.Len(t, res, 4)
	for i, want := range []struct {
		name string
		g    int
	}{{subs[0].Name, 1}, {subs[0].Name, 2}, {subs[1].Name, 1}, {subs[1].Name, 2}} {
		assert.Equal(t, want.name, res[i].Subject)
		assert.Equal(t, want.g, res[i].Goroutines)
		assert.Len(t, res[i].Samples, 2)
		assert.True(t, res[i].Check.OK(), "%+v", res[i].Check)
	}
	assert.Empty(t, res[0].TickFill, "a monotonic generator has no strict slots")
	assert.Len(t, res[2].TickFill, 2)
	_, err = SaturateSweep(subs, SaturateConfig{Goroutines: []int{0}}, nil)
	require.ErrorIs(t, err, ErrConfig)
}

func TestSteadyOwn(t *testing.T) {
	s := ownSubject(t, "shardedgen/split-sequence/monotonic")
	r, err := Steady(s, SteadyConfig{Rate: 100_000, Duration: 50 * time.Millisecond, Workers: 2})
	require.NoError(t, err)
	assert.True(t, r.Check.OK(), "%+v", r.Check)
	assert.Equal(t, 5000, r.Check.IDs)
	assert.Positive(t, r.Achieved)
}

// TestChecksCatchDuplicates: every workload finds a generator's duplicates.
func TestChecksCatchDuplicates(t *testing.T) {
	s := fixture.Duplicating()
	b, err := Burst(s, BurstConfig{IDs: 1000, Goroutines: 4, Repeats: 1}, false, nil)
	require.NoError(t, err)
	assert.Positive(t, b.Check.Duplicates)
	sat, err := saturate(s, 2, SaturateConfig{Duration: 5 * time.Millisecond, Repeats: 1})
	require.NoError(t, err)
	assert.Positive(t, sat.Check.Duplicates)

}

func TestCheckOrderAndCeiling(t *testing.T) {
	s := subject.Subject{Name: "x", Strict: true, Order: subject.OrderCaller, PerTick: 2, Tick: time.Millisecond,
		Decode: func(id subject.ID) (time.Time, int) { return time.UnixMilli(int64(id.Lo >> 8)), int(id.Lo>>4) & 15 }}
	c := Check(s, nil, [][]subject.ID{
		{{Lo: 1<<8 | 1<<4 | 0}, {Lo: 1<<8 | 1<<4 | 1}, {Lo: 1<<8 | 1<<4 | 2}}, // 3 in one tick: over 2
		{{Lo: 5 << 8}, {Lo: 4 << 8}},                                          // decreasing
	}, 1, errors.New("boom"))
	assert.Equal(t, 5, c.IDs)
	assert.Equal(t, 1, c.OrderViolations)
	assert.Zero(t, c.Duplicates)
	assert.Equal(t, 3, c.MaxPerTickNode)
	assert.True(t, c.CeilingExceeded)
	assert.Equal(t, "boom", c.FirstError)
	assert.False(t, c.OK())
}

func TestTickFill(t *testing.T) {
	// IDs: tick in the high bits, node in bits 4-7, 4 per tick per node.
	s := subject.Subject{Name: "x", Strict: true, PerTick: 4, Tick: time.Millisecond,
		Decode: func(id subject.ID) (time.Time, int) { return time.UnixMilli(int64(id.Lo >> 8)), int(id.Lo>>4) & 15 }}
	id := func(tick, node, seq uint64) subject.ID { return subject.ID{Lo: tick<<8 | node<<4 | seq} }
	// Ticks 1-3 on node 0 full, tick 4 cut short (the host took the core
	// away after one ID), tick 1 on node 1 half: median slot full.
	fill, ok := tickFill(s, nil, [][]subject.ID{
		{id(1, 0, 0), id(1, 0, 1), id(1, 0, 2), id(1, 0, 3), id(2, 0, 0), id(2, 0, 1), id(2, 0, 2), id(2, 0, 3)},
		{id(3, 0, 0), id(3, 0, 1), id(3, 0, 2), id(3, 0, 3), id(4, 0, 0), id(1, 1, 0), id(1, 1, 1)},
	})
	require.True(t, ok)
	assert.Equal(t, 1.0, fill)
	// Too slow to fill any tick: every slot half full.
	fill, ok = tickFill(s, nil, [][]subject.ID{{id(1, 0, 0), id(1, 0, 1), id(2, 0, 0), id(2, 0, 1), id(3, 0, 0), id(3, 0, 1)}})
	require.True(t, ok)
	assert.Equal(t, 0.5, fill)
	_, ok = tickFill(subject.Subject{Decode: s.Decode}, nil, [][]subject.ID{{id(1, 0, 0)}})
	assert.False(t, ok, "no strict ceiling, no fill")
	_, ok = tickFill(s, nil, nil)
	assert.False(t, ok, "no IDs, no fill")
}

func TestSweep(t *testing.T) {
	assert.Equal(t, []int{1}, sweep(1))
	assert.Equal(t, []int{1, 2, 4}, sweep(4))
	assert.Equal(t, []int{1, 2, 4, 6}, sweep(6))
}

// TestZeroConfigTakesDefaults: a Suite built with zero configurations runs
// what loadgen's flags run by default (the exported Default constants).
func TestZeroConfigTakesDefaults(t *testing.T) {
	b := BurstConfig{}.withDefaults()
	assert.Equal(t, BurstConfig{IDs: DefaultBurstIDs, Goroutines: DefaultBurstGoroutines,
		Repeats: DefaultBurstRepeats, Pause: DefaultBurstPause, CeilingBudget: DefaultCeilingBudget}, b)
	s := SaturateConfig{}.withDefaults()
	assert.Equal(t, DefaultSaturateDuration, s.Duration)
	assert.Equal(t, DefaultSaturateRepeats, s.Repeats)
	st := SteadyConfig{}.withDefaults()
	assert.Equal(t, DefaultSteadyRate, st.Rate)
	assert.Equal(t, DefaultSteadyDuration, st.Duration)
	assert.Equal(t, DefaultCeilingBudget, st.CeilingBudget)
}

// TestCeilingBudget: a strict subject is asked for no more than its
// ceiling serves in the budget, at least one ID; a subject without a
// ceiling, or one the workload does not outrun, is asked for all.
func TestCeilingBudget(t *testing.T) {
	sonyflake := subject.Subject{Name: "sf", Strict: true, Nodes: 1, PerTick: 256, Tick: 10 * time.Millisecond} // 25.6k IDs/s
	snowlab := subject.Subject{Name: "sl", Strict: true, Nodes: 1, PerTick: 4096, Tick: time.Millisecond}       // 4.096M IDs/s
	borrowing := subject.Subject{Name: "mono", Nodes: 1, PerTick: 256, Tick: 10 * time.Millisecond}
	trickle := subject.Subject{Name: "t", Strict: true, Nodes: 1, PerTick: 1, Tick: time.Second}

	// The lab's defaults: only Sonyflake's library defaults are cut.
	b := BurstConfig{}
	assert.Equal(t, 12_800, b.boundFor(sonyflake).IDs, "25.6k IDs/s × 500 ms")
	assert.Equal(t, DefaultBurstIDs, b.boundFor(snowlab).IDs)
	assert.Equal(t, DefaultBurstIDs, b.boundFor(borrowing).IDs, "not strict: no ceiling to bound by")
	one := BurstConfig{CeilingBudget: time.Millisecond}.boundFor(trickle)
	assert.Equal(t, 1, one.IDs, "at least one ID")
	assert.Equal(t, 1, one.Goroutines, "no more goroutines than IDs")

	st := SteadyConfig{}.withDefaults()
	calls, d := st.calls(sonyflake)
	assert.Equal(t, int64(12_800), calls)
	assert.Equal(t, 12800*time.Microsecond, d, "12,800 calls at 1M/s")
	calls, d = st.calls(snowlab)
	assert.Equal(t, int64(300_000), calls, "its ceiling is above the rate: no backlog to bound")
	assert.Equal(t, DefaultSteadyDuration, d)
	calls, d = SteadyConfig{Rate: 10_000, Duration: 100 * time.Millisecond}.withDefaults().calls(sonyflake)
	assert.Equal(t, int64(1000), calls, "a rate under its ceiling: not cut")
	assert.Equal(t, 100*time.Millisecond, d)
}

// TestConfigOutOfRange: every workload refuses, before allocating, a
// configuration that would not fit in memory or makes no sense, with an
// error naming the value.
func TestConfigOutOfRange(t *testing.T) {
	s := ownSubject(t, "atomicgen/strict")
	for _, tc := range []struct {
		run  func() error
		want string
	}{
		{func() error { _, err := Burst(s, BurstConfig{IDs: math.MaxInt}, false, nil); return err }, strconv.Itoa(math.MaxInt)},
		{func() error { _, err := Burst(s, BurstConfig{IDs: -1}, false, nil); return err }, "-1"},
		{func() error { _, err := Burst(s, BurstConfig{Goroutines: math.MaxInt}, false, nil); return err }, strconv.Itoa(math.MaxInt)},
		{func() error { _, err := Burst(s, BurstConfig{Pause: -time.Second}, false, nil); return err }, "-1s"},
		{func() error { _, err := saturate(s, 1, SaturateConfig{Duration: -time.Second}); return err }, "-1s"},
		{func() error { _, err := saturate(s, math.MaxInt, SaturateConfig{}); return err }, strconv.Itoa(math.MaxInt)},
		{func() error { _, err := saturate(s, 0, SaturateConfig{}); return err }, "goroutines 0"},
		{func() error { _, err := saturate(s, 1, SaturateConfig{Goroutines: []int{0}}); return err }, "goroutines 0"},
		{func() error { _, err := Steady(s, SteadyConfig{Rate: math.NaN()}); return err }, "NaN"},
		{func() error { _, err := Steady(s, SteadyConfig{Rate: math.Inf(1)}); return err }, "+Inf"},
		{func() error { _, err := Steady(s, SteadyConfig{Rate: 1e9, Duration: time.Minute}); return err }, "6e+10 calls"},
		{func() error { _, err := Steady(s, SteadyConfig{Rate: 1, Duration: time.Millisecond}); return err }, "schedules no call"},
		{func() error { _, err := Steady(s, SteadyConfig{CeilingBudget: -time.Second}); return err }, "ceiling budget -1s"},
		{func() error { _, err := Burst(s, BurstConfig{CeilingBudget: time.Hour}, false, nil); return err }, "ceiling budget 1h0m0s"},
	} {
		err := tc.run()
		assert.ErrorIs(t, err, ErrConfig, tc.want)
		assert.ErrorContains(t, err, tc.want)
	}
}

// TestLimitSubjects: the physical limits pass the same checks as any
// generator in every workload (unique IDs, order per caller or per word),
// and demand no tick ceiling.
func TestLimitSubjects(t *testing.T) {
	subs := subject.Limits()
	require.Len(t, subs, 4)
	for _, s := range subs {
		assert.True(t, s.Physical, s.Name)
		assert.False(t, s.Strict, s.Name)
		assert.Zero(t, s.Ceiling(), s.Name)
		b, err := Burst(s, BurstConfig{IDs: 20_000, Goroutines: 8, Repeats: 2, Pause: time.Millisecond}, false, nil)
		require.NoError(t, err)
		assert.True(t, b.Check.OK(), "%s: %+v", s.Name, b.Check)
		sat, err := saturate(s, 4, SaturateConfig{Duration: 20 * time.Millisecond, Repeats: 1})
		require.NoError(t, err)
		assert.True(t, sat.Check.OK(), "%s: %+v", s.Name, sat.Check)
		assert.Positive(t, sat.IDsPerSec)
		st, err := Steady(s, SteadyConfig{Rate: 100_000, Duration: 20 * time.Millisecond})
		require.NoError(t, err)
		assert.True(t, st.Check.OK(), "%s: %+v", s.Name, st.Check)
		// That the embedded time is the clock's is subject's
		// TestLimitSubjects: there on a clock made for the check, whose
		// error is bounded by the time the check took; here the clock has
		// run through the workloads, resyncing on samples a loaded
		// machine may have stretched, and "within 1 s of time.Now"
		// assumed none was stretched that far.
	}
	for _, s := range subject.Own(1) {
		assert.Contains(t, []string{subject.LimitClockAdd, subject.LimitPerPAdd}, s.Limit, s.Name)
	}
}

// countingMinter counts the IDs its minter hands out.
type countingMinter struct {
	subject.Minter
	n *atomic.Int64
}

func (c countingMinter) Next() (subject.ID, error) {
	c.n.Add(1)
	return c.Minter.Next()
}

// TestServerCPU: a subject served by another process gets the IDs per
// second of that process's CPU per saturate repeat, and the CPU per ID of
// a steady run; a subject without the reader gets neither.
func TestServerCPU(t *testing.T) {
	s := ownSubject(t, "atomicgen/strict")
	var minted atomic.Int64
	newMinter := s.New
	s.New = func() (subject.Minter, error) {
		m, err := newMinter()
		return countingMinter{m, &minted}, err
	}
	// A server that spends 2 µs of CPU per ID it serves.
	s.ServerCPU = func() (time.Duration, bool) { return time.Duration(minted.Load()) * 2 * time.Microsecond, true }
	r, err := saturate(s, 2, SaturateConfig{Duration: 10 * time.Millisecond, Repeats: 3})
	require.NoError(t, err)
	assert.InEpsilonSlice(t, []float64{500_000, 500_000, 500_000}, r.ServerCPUSamples, 1e-9, "IDs per server CPU-second")
	assert.InEpsilon(t, 500_000, r.ServerPerCPUSec, 1e-9)
	st, err := Steady(s, SteadyConfig{Rate: 100_000, Duration: 20 * time.Millisecond, Workers: 2})
	require.NoError(t, err)
	assert.Equal(t, 2*time.Microsecond, st.ServerCPUPerID)

	s.ServerCPU = func() (time.Duration, bool) { return 0, false }
	r, err = saturate(s, 1, SaturateConfig{Duration: 5 * time.Millisecond, Repeats: 1})
	require.NoError(t, err)
	assert.Empty(t, r.ServerCPUSamples)
	st, err = Steady(s, SteadyConfig{Rate: 100_000, Duration: 10 * time.Millisecond, Workers: 1})
	require.NoError(t, err)
	assert.Zero(t, st.ServerCPUPerID)
}

// TestWaitUntil: a wait returns at or after its due time, for a time in
// the past, just ahead (yielding) and further ahead (asleep).
func TestWaitUntil(t *testing.T) {
	w := newWaiter()
	defer w.close()
	for _, ahead := range []time.Duration{-time.Millisecond, 0, 10 * time.Microsecond, 300 * time.Microsecond, 3 * time.Millisecond} {
		due := limit.Now() + int64(ahead)
		waitUntil(w, due)
		assert.GreaterOrEqual(t, limit.Now(), due, "waiting %v", ahead)
	}
}

// errShared is what perCallerMinter's instance answers: a goroutine
// called the run's instance instead of its own caller.
var errShared = errors.New("the run's instance was called: its goroutines were not given callers of their own")

// perCallerMinter is a subject.PerCaller whose instance refuses Next and
// Fill; caller k mints k<<32+1, k<<32+2, …, unsynchronized, so the race
// detector sees two goroutines sharing one.
type perCallerMinter struct {
	mu   sync.Mutex
	made int
}

func (p *perCallerMinter) Next() (subject.ID, error)          { return subject.ID{}, errShared }
func (p *perCallerMinter) Fill(dst []subject.ID) (int, error) { return 0, errShared }
func (p *perCallerMinter) NewCaller() subject.Minter {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.made++
	return &rangeCaller{next: uint64(p.made) << 32}
}

type rangeCaller struct{ next uint64 }

func (c *rangeCaller) Next() (subject.ID, error) { c.next++; return subject.ID{Lo: c.next}, nil }

// TestWorkloadsGiveEachGoroutineACaller: every workload calls a
// PerCaller's instance through one caller per goroutine, made for the run.
func TestWorkloadsGiveEachGoroutineACaller(t *testing.T) {
	var made []*perCallerMinter
	s := subject.Subject{Name: "per-caller", Order: subject.OrderCaller, Batch: true,
		Decode: func(subject.ID) (time.Time, int) { return time.Now(), -1 },
		New: func() (subject.Minter, error) {
			m := &perCallerMinter{}
			made = append(made, m)
			return m, nil
		}}
	for _, batch := range []bool{false, true} {
		made = nil
		b, err := Burst(s, BurstConfig{IDs: 1000, Goroutines: 4, Repeats: 2, Pause: time.Millisecond}, batch, nil)
		require.NoError(t, err)
		assert.True(t, b.Check.OK(), "burst (batch %v): %+v", batch, b.Check)
		assert.Equal(t, 2000, b.Check.IDs)
		require.Len(t, made, 2, "one instance per repeat")
		assert.Equal(t, 4, made[0].made)
		assert.Equal(t, 4, made[1].made)
	}

	made = nil
	sat, err := saturate(s, 3, SaturateConfig{Duration: 5 * time.Millisecond, Repeats: 1})
	require.NoError(t, err)
	assert.True(t, sat.Check.OK(), "saturate: %+v", sat.Check)
	require.Len(t, made, 1)
	assert.Equal(t, 3, made[0].made)

	made = nil
	st, err := Steady(s, SteadyConfig{Rate: 100_000, Duration: 10 * time.Millisecond, Workers: 2})
	require.NoError(t, err)
	assert.True(t, st.Check.OK(), "steady: %+v", st.Check)
	assert.Equal(t, 1000, st.Check.IDs)
	require.Len(t, made, 1)
	assert.Equal(t, 2, made[0].made)
}
