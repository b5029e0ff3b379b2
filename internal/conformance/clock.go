package conformance

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hang is how long a call may take before the suite calls it a hang. The
// bounded waits here are MaxWait plus a tick (6 ms); the margin is for
// -race and a loaded CI machine, not a claim about speed.
const hang = 10 * time.Second

// testRewindRefused: a 600 ms rewind is refused, not absorbed (Strict).
func testRewindRefused(t *testing.T, s Suite) {
	g := s.gen(t, snowlab.Config{Node: 7, MaxWait: 5 * time.Millisecond,
		Clock: clocksrc.ScriptedMillis(epochMs+1000, epochMs+400)})
	next(t, g)
	_, err := g.NextID()
	require.ErrorIs(t, err, snowlab.ErrClockBackwards, "a 600 ms rewind must not be silently absorbed")
	assert.Equal(t, uint64(1), g.Stats().RewindRefusals)
	assert.Zero(t, g.Stats().RewindWaits, "refused at once, not waited on")
}

// testRewindWaitedOut: a 2 ms rewind within MaxWait 5 ms is waited out and
// the ID continues the sequence of the last tick.
func testRewindWaitedOut(t *testing.T, s Suite) {
	g := s.gen(t, snowlab.Config{Node: 7, MaxWait: 5 * time.Millisecond,
		Clock: clocksrc.ScriptedMillis(epochMs+1000, epochMs+998, epochMs+1000)})
	one := next(t, g)
	two := next(t, g)
	assert.Greater(t, two, one)
	assert.Equal(t, uint64(1), g.Stats().RewindWaits)
	assert.Zero(t, g.Stats().RewindRefusals)
	if !s.multi() {
		assert.Equal(t, 1, snowlab.DefaultLayout.Decode(two).Seq)
	}
}

// testNegativeMaxWait: MaxWait < 0 refuses even a 1 ms rewind, while the
// same rewind with the default budget is waited out: the two halves of the
// threshold are tested apart.
func testNegativeMaxWait(t *testing.T, s Suite) {
	g := s.gen(t, snowlab.Config{MaxWait: -1,
		Clock: clocksrc.ScriptedMillis(epochMs+10, epochMs+9)})
	next(t, g)
	_, err := g.NextID()
	require.ErrorIs(t, err, snowlab.ErrClockBackwards)

	g = s.gen(t, snowlab.Config{Clock: clocksrc.ScriptedMillis(epochMs+10, epochMs+9, epochMs+10)})
	next(t, g)
	next(t, g)
}

// retreating returns a clock that goes back 4 ms on every read.
func retreating() clocksrc.Clock {
	var reads atomic.Int64
	return clocksrc.Func(func() int64 {
		return (epochMs+1_000_000)*int64(time.Millisecond) - reads.Add(1)*4*int64(time.Millisecond)
	})
}

// testRetreatingClock: a clock that retreats on every read passes each
// per-read drift test yet never comes back; the call must return an error
// within its bound, never hang. Monotonic has nothing to wait for unless
// MaxLead is set, and then it must error the same way.
func testRetreatingClock(t *testing.T, s Suite) {
	// A shard that has not minted has seen no later time to refuse against:
	// calls go on until one lands on a shard that has, which by pigeonhole
	// is within Shards+1 calls; a single word must refuse the next call.
	g := s.gen(t, snowlab.Config{MaxWait: 5 * time.Millisecond, Clock: retreating()})
	next(t, g)
	tries := 1
	if s.multi() {
		tries = s.Shards + 1
	}
	within(t, hang, func() {
		var err error
		for i := 0; i < tries && err == nil; i++ {
			_, err = g.NextID()
		}
		assert.ErrorIs(t, err, snowlab.ErrClockBackwards)
	})

	m := s.gen(t, snowlab.Config{Policy: snowlab.Monotonic, Clock: retreating()})
	ids := []snowlab.ID{next(t, m), next(t, m), next(t, m)}
	s.checkOrder(t, m, ids)

	m = s.gen(t, snowlab.Config{Policy: snowlab.Monotonic, MaxLead: 5 * time.Millisecond, Clock: retreating()})
	next(t, m)
	within(t, hang, func() {
		var err error
		for i := 0; i < 10 && err == nil; i++ {
			_, err = m.NextID()
		}
		assert.ErrorIs(t, err, snowlab.ErrClockBackwards)
	})
}

// testFrozenStrict: a clock that does not advance gets one tick's worth of
// IDs, then an error instead of a call blocked for ever.
func testFrozenStrict(t *testing.T, s Suite) {
	g := s.gen(t, snowlab.Config{Node: 1, Clock: clocksrc.FixedMillis(epochMs + 5)})
	var ids []snowlab.ID
	var err error
	within(t, hang, func() {
		for err == nil {
			var id snowlab.ID
			if id, err = g.NextID(); err == nil {
				ids = append(ids, id)
			}
		}
	})
	require.ErrorIs(t, err, snowlab.ErrClockBackwards, "a frozen clock must error, not block")
	requireUnique(t, ids)
	s.checkOrder(t, g, ids)
	if s.multi() {
		assert.LessOrEqual(t, len(ids), 4096*s.nodesUsed())
	} else {
		assert.Len(t, ids, 4096)
	}
	st := g.Stats()
	assert.GreaterOrEqual(t, st.TickWaits, uint64(1))
	assert.Equal(t, uint64(1), st.RewindRefusals)

	// A Strict batch larger than everything the generator can give in one
	// tick stops at the same place and says how far it got.
	g = s.gen(t, snowlab.Config{Node: 1, Clock: clocksrc.FixedMillis(epochMs + 5)})
	dst := make([]snowlab.ID, 4096*s.nodesUsed()+1)
	n, err := g.NextIDs(dst)
	require.ErrorIs(t, err, snowlab.ErrClockBackwards)
	if s.multi() {
		assert.LessOrEqual(t, n, 4096*s.nodesUsed())
	} else {
		assert.Equal(t, 4096, n)
	}
	requireUnique(t, dst[:n])
}

// testFrozenMonotonic: Monotonic never reads the clock for an exit
// condition, so a frozen clock cannot hang it: it borrows ticks.
func testFrozenMonotonic(t *testing.T, s Suite) {
	g := s.gen(t, snowlab.Config{Node: 1, Policy: snowlab.Monotonic, Clock: clocksrc.FixedMillis(epochMs + 5)})
	ids := make([]snowlab.ID, 50_000)
	for i := range ids {
		ids[i] = next(t, g)
	}
	requireUnique(t, ids)
	s.checkOrder(t, g, ids)
	assert.Zero(t, g.Stats().RewindRefusals)
}

// testMonotonicRewind: a 600 ms rewind is absorbed by carrying on from the
// last tick.
//
// With several shards the clock is read per shard, each against its own
// last tick, and a goroutine may move to another P (so another shard)
// between two calls: a shard that first reads 400 ms has seen no rewind
// and mints at 400. So the logical clock is checked on the shard that
// read 1,000 ms, the first ID's; order within every shard is checked
// for all. (Asserting 1,000 ms for every ID failed under load on
// split-sequence with 3 shards: the second call ran on another P.)
func testMonotonicRewind(t *testing.T, s Suite) {
	g := s.gen(t, snowlab.Config{Policy: snowlab.Monotonic,
		Clock: clocksrc.ScriptedMillis(epochMs+1000, epochMs+400, epochMs+401)})
	ids := []snowlab.ID{next(t, g), next(t, g), next(t, g)}
	s.checkOrder(t, g, ids)
	requireUnique(t, ids)
	for i, id := range ids {
		if s.multi() && s.ShardOf(g, id) != s.ShardOf(g, ids[0]) {
			continue
		}
		assert.Equal(t, time.UnixMilli(epochMs+1000).UTC(), snowlab.DefaultLayout.Decode(id).Time,
			"ID #%d: the logical clock stays at the last tick", i)
	}
}

// testMaxLead: on a frozen clock, Monotonic with MaxLead borrows up to the
// lead and then errors instead of hanging; no ID runs further ahead.
func testMaxLead(t *testing.T, s Suite) {
	const lead = 3 * time.Millisecond
	clockMs := int64(epochMs + 5)
	g := s.gen(t, snowlab.Config{Node: 1, Policy: snowlab.Monotonic, MaxLead: lead,
		Clock: clocksrc.FixedMillis(clockMs)})
	var ids []snowlab.ID
	var err error
	within(t, hang, func() {
		for err == nil {
			var id snowlab.ID
			if id, err = g.NextID(); err == nil {
				ids = append(ids, id)
			}
		}
	})
	require.ErrorIs(t, err, snowlab.ErrClockBackwards)
	requireUnique(t, ids)
	s.checkOrder(t, g, ids)
	limit := time.UnixMilli(clockMs).Add(lead)
	for _, id := range ids {
		require.False(t, snowlab.DefaultLayout.Decode(id).Time.After(limit), "id %d is past the lead", id)
	}
	if !s.multi() {
		assert.Len(t, ids, 4096*4, "the clock's tick and three borrowed ones")
	}
	assert.GreaterOrEqual(t, g.Stats().TickWaits, uint64(1))
}
