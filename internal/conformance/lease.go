package conformance

import (
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// farFuture is a reservation no test reaches.
var farFuture = time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

// testFenceNodes: a generator mints only on node ids its fence holds. A
// lease of n ids accepts a generator that uses exactly them and refuses,
// with ErrInvalidNode, one that would use an id outside them (a range
// shifted by one, or one id too many): before this rule two leases on
// neighbouring ids built node-per-shard generators that shared an id.
func testFenceNodes(t *testing.T, s Suite) {
	n := s.nodesUsed()
	held := func(count int) *snowlab.Fence { return snowlab.NewFenceFor(3, count, 0, farFuture) }
	next(t, s.gen(t, snowlab.Config{Node: 3, Fence: held(n)}))
	next(t, s.gen(t, snowlab.Config{Node: 4, Fence: snowlab.NewFenceFor(3, n+1, 0, farFuture)}))
	for name, cfg := range map[string]snowlab.Config{
		"shifted up":   {Node: 4, Fence: held(n)},
		"shifted down": {Node: 2, Fence: held(n)},
		"far outside":  {Node: 500, Fence: held(n)},
	} {
		_, err := s.New(cfg)
		require.ErrorIs(t, err, snowlab.ErrInvalidNode, name)
		assert.Contains(t, err.Error(), "not held", name)
	}
	if n > 1 {
		_, err := s.New(snowlab.Config{Node: 3, Fence: held(n - 1)})
		require.ErrorIs(t, err, snowlab.ErrInvalidNode, "one id too few")
	}
}

// testSuccessiveOnFence: generators built one after another on one fence
// (as from one lease) never repeat an ID: each starts after every tick the
// earlier ones claimed. On a frozen clock a Monotonic generator borrows
// ticks ahead, and the next one must start past them.
func testSuccessiveOnFence(t *testing.T, s Suite) {
	base := (epochMs + 5000) * msNs
	for name, tc := range map[string]struct {
		p     snowlab.Policy
		clock clocksrc.Clock
	}{
		"strict, 100µs a read":    {snowlab.Strict, stepClock(base, 100_000)},
		"monotonic, 100µs a read": {snowlab.Monotonic, stepClock(base, 100_000)},
		"monotonic, frozen":       {snowlab.Monotonic, clocksrc.FixedMillis(base / msNs)},
	} {
		t.Run(name, func(t *testing.T) {
			fence := snowlab.NewFenceFor(9, s.nodesUsed(), 0, farFuture)
			var ids []snowlab.ID
			for range 50 {
				g := s.gen(t, snowlab.Config{Node: 9, Policy: tc.p, Fence: fence, Clock: tc.clock})
				for range 10 {
					ids = append(ids, next(t, g))
				}
				if !s.multi() {
					// One space: the new generator's IDs are above
					// everything before it.
					s.checkOrder(t, g, ids)
				}
			}
			requireUnique(t, ids)
			assert.LessOrEqual(t, tickEnd(slices.Max(ids)), fence.LastEnd(), "LastEnd covers every ID")
		})
	}
}

// testNewerGeneratorStopsOlder: two live generators on one fence's node ids
// would repeat each other, so building the second stops the first with
// ErrNoReservation, naming why; the second mints above it.
func testNewerGeneratorStopsOlder(t *testing.T, s Suite) {
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		fence := snowlab.NewFenceFor(0, s.nodesUsed(), 0, farFuture)
		clock := clocksrc.FixedMillis(epochMs + 7000)
		if p == snowlab.Strict {
			clock = stepClock((epochMs+7000)*msNs, 100_000)
		}
		older := s.gen(t, snowlab.Config{Policy: p, Fence: fence, Clock: clock})
		a := next(t, older)
		newer := s.gen(t, snowlab.Config{Policy: p, Fence: fence, Clock: clock})
		_, err := older.NextID()
		require.ErrorIs(t, err, snowlab.ErrNoReservation)
		assert.Contains(t, err.Error(), "newer generator")
		n, err := older.NextIDs(make([]snowlab.ID, 5))
		require.ErrorIs(t, err, snowlab.ErrNoReservation)
		assert.Zero(t, n)
		b := next(t, newer)
		assert.Greater(t, b, a)
		// A generator on other node ids of the same fence is left alone.
		wide := snowlab.NewFenceFor(0, 2*s.nodesUsed(), 0, farFuture)
		left := s.gen(t, snowlab.Config{Policy: p, Fence: wide, Clock: clock})
		s.gen(t, snowlab.Config{Node: s.nodesUsed(), Policy: p, Fence: wide, Clock: clock})
		next(t, left)
	})
}

// testMonotonicLeadRefusesStep: with MaxLead, a clock stepped back further
// than MaxLead plus MaxWait is refused at once with ErrClockBackwards, not
// waited out (a one-hour NTP step would block an hour); a step within the
// bound is waited out. In a sharded generator the refusal is the shard's
// that saw the later time: a shard that never did has no step to refuse.
func testMonotonicLeadRefusesStep(t *testing.T, s Suite) {
	for _, back := range []int64{300, 1500, 3_600_000} {
		g := s.gen(t, snowlab.Config{Policy: snowlab.Monotonic, MaxLead: 2 * time.Millisecond,
			Clock: clocksrc.ScriptedMillis(epochMs+4_000_000, epochMs+4_000_000-back)})
		first := next(t, g)
		var id snowlab.ID
		var err error
		within(t, hang, func() { id, err = g.NextID() })
		assert.Zero(t, g.Stats().TickWaits, "refused without waiting (%d ms step)", back)
		if s.multi() && err == nil {
			// The call reached a shard that never saw the later time: it
			// has no step to refuse, and its sequences are its own. The
			// shard that did see it is the one that must refuse.
			require.NotEqual(t, s.ShardOf(g, first), s.ShardOf(g, id),
				"the shard that minted at the later time took a %d ms step back", back)
			assert.Zero(t, g.Stats().RewindRefusals)
			continue
		}
		require.ErrorIs(t, err, snowlab.ErrClockBackwards, "a %d ms step back under MaxLead 2 ms", back)
		assert.Equal(t, uint64(1), g.Stats().RewindRefusals)
	}
	// 5 ms back with MaxLead 2 ms and MaxWait 5 ms: a 2 ms wait, taken.
	g := s.gen(t, snowlab.Config{Policy: snowlab.Monotonic, MaxLead: 2 * time.Millisecond, MaxWait: 5 * time.Millisecond,
		Clock: clocksrc.ScriptedMillis(epochMs+1000, epochMs+995)})
	a := next(t, g)
	assert.Greater(t, next(t, g), a)
}

// testHugeMaxWait: MaxWait math.MaxInt64 means "wait as long as it takes":
// the wait budget saturates instead of wrapping into a deadline in the
// past, which refused a healthy clock after one spent tick.
func testHugeMaxWait(t *testing.T, s Suite) {
	// A clock that reads the last microsecond of a tick and moves to the
	// next tick every 4,100 reads: a spent tick waits a few reads.
	var reads atomic.Int64
	clock := clocksrc.Func(func() int64 {
		return (epochMs+9000)*msNs + (reads.Add(1)/4100+1)*msNs - 1000
	})
	g := s.gen(t, snowlab.Config{MaxWait: math.MaxInt64, Clock: clock})
	within(t, hang, func() {
		for range 2*4096 + 10 {
			next(t, g)
		}
	})
}

func tickEnd(id snowlab.ID) int64 {
	return snowlab.DefaultLayout.Decode(id).Time.Add(time.Millisecond).UnixNano()
}
