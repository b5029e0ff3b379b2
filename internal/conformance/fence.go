package conformance

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const msNs = int64(time.Millisecond)

// testReservationUntil: no ID carries a tick that ends after Fence.Until;
// reaching it is ErrNoReservation until the lease extends the fence, and a
// revoked fence stops everything.
func testReservationUntil(t *testing.T, s Suite) {
	base := (epochMs + 1000) * msNs
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		fence := snowlab.NewFence(0, base+5*msNs) // ticks base .. base+4 ms are reserved
		g := s.gen(t, snowlab.Config{Policy: p, Fence: fence, Clock: stepClock(base-msNs, msNs)})
		var ids []snowlab.ID
		var err error
		for err == nil && len(ids) < 100 {
			var id snowlab.ID
			if id, err = g.NextID(); err == nil {
				ids = append(ids, id)
			}
		}
		require.ErrorIs(t, err, snowlab.ErrNoReservation)
		requireUnique(t, ids)
		limit := time.Unix(0, fence.Until())
		for _, id := range ids {
			end := snowlab.DefaultLayout.Decode(id).Time.Add(time.Millisecond)
			require.False(t, end.After(limit), "id %d ends at %v, after the reservation %v", id, end, limit)
		}

		fence.Extend(base + 1000*msNs)
		next(t, g)
		fence.Revoke()
		_, err = g.NextID()
		require.ErrorIs(t, err, snowlab.ErrNoReservation)
		n, err := g.NextIDs(make([]snowlab.ID, 10))
		require.ErrorIs(t, err, snowlab.ErrNoReservation)
		assert.Zero(t, n)
	})

	// Monotonic on a frozen clock borrows up to the reservation, never past.
	fence := snowlab.NewFence(0, base+3*msNs)
	g := s.gen(t, snowlab.Config{Policy: snowlab.Monotonic, Fence: fence, Clock: clocksrc.FixedMillis(base / msNs)})
	dst := make([]snowlab.ID, 5*4096*s.nodesUsed())
	n, err := g.NextIDs(dst)
	require.ErrorIs(t, err, snowlab.ErrNoReservation)
	if !s.multi() {
		assert.Equal(t, 3*4096, n, "three reserved ticks, then stop")
	}
	for _, id := range dst[:n] {
		require.Less(t, snowlab.DefaultLayout.Decode(id).Time.UnixNano(), base+3*msNs)
	}
}

// testMonotonicWaitsForFence: a Monotonic generator whose logical clock
// has used its reservation up (IDs asked for faster than the sequence
// runs, here on a frozen clock) waits for the lease to move the
// reservation, within MaxWait, instead of refusing at once: an extension
// that comes during the wait lets the call mint in the first tick past
// the old end; with none, the call fails with ErrNoReservation after
// MaxWait, not before, and within a tick of it. The waits run on
// testing/synctest's virtual time, so the bounds are exact.
func testMonotonicWaitsForFence(t *testing.T, s Suite) {
	const maxWait = 5 * time.Millisecond
	base := (epochMs + 1000) * msNs
	synctest.Test(t, func(t *testing.T) {
		fence := snowlab.NewFence(0, base+3*msNs) // ticks base .. base+2 ms
		g := s.gen(t, snowlab.Config{Policy: snowlab.Monotonic, Fence: fence, MaxWait: maxWait, Clock: clocksrc.FixedMillis(base / msNs)})
		dst := make([]snowlab.ID, 4*4096*s.nodesUsed())
		start := time.Now()
		n, err := g.NextIDs(dst)
		waited := time.Since(start)
		require.ErrorIs(t, err, snowlab.ErrNoReservation, "no extension: the reservation used up")
		if !s.multi() {
			assert.Equal(t, 3*4096, n, "three reserved ticks")
		}
		assert.GreaterOrEqual(t, waited, maxWait, "refused before MaxWait")
		assert.LessOrEqual(t, waited, maxWait+time.Millisecond, "refused well after MaxWait")
		waits := g.Stats().TickWaits
		assert.GreaterOrEqual(t, waits, uint64(1), "the wait counts as a tick wait")

		extended := make(chan struct{})
		go func() {
			time.Sleep(2 * time.Millisecond) // the lease's refresh, during the wait
			fence.Extend(base + 100*msNs)
			close(extended)
		}()
		start = time.Now()
		id, err := g.NextID()
		waited = time.Since(start)
		require.NoError(t, err, "the reservation extended during the wait")
		<-extended
		if s.multi() {
			// A call on another shard (the goroutine woke on another P)
			// mints in that shard's own unspent ticks without waiting:
			// which shard runs it is the scheduler's, so only the
			// single-state generators have a wait to measure here.
			return
		}
		assert.Equal(t, base+3*msNs, snowlab.DefaultLayout.Decode(id).Time.UnixNano(), "the first tick past the old end")
		assert.GreaterOrEqual(t, waited, 2*time.Millisecond, "minted before the extension")
		assert.Less(t, waited, maxWait, "waited past the extension")
		assert.Greater(t, g.Stats().TickWaits, waits)
	})
}

// testReservationFloor: a generator never mints in time its predecessor
// may have used. New waits for a clock a little behind the floor, refuses
// one far behind, and even with the clock in the floor's own tick the first
// ID starts at or after the floor.
func testReservationFloor(t *testing.T, s Suite) {
	floor := (epochMs+2000)*msNs + msNs/2 // half-way through a tick
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		// 300 µs a read from 3 ms before the floor: New waits it out.
		clock := stepClock(floor-3*msNs, 300_000)
		g := s.gen(t, snowlab.Config{Policy: p, Fence: snowlab.NewFence(floor, floor+time.Hour.Nanoseconds()), Clock: clock})
		first := next(t, g)
		assert.GreaterOrEqual(t, snowlab.DefaultLayout.Decode(first).Time.UnixNano(), floor,
			"the first ID starts at or after the predecessor's reservation")

		// Far behind: refuse at once rather than freeze the start.
		_, err := s.New(snowlab.Config{Policy: p, MaxFloorWait: 50 * time.Millisecond,
			Fence: snowlab.NewFence(floor, floor+msNs), Clock: clocksrc.FixedMillis(floor/msNs - 3_600_000)})
		require.ErrorIs(t, err, snowlab.ErrClockBackwards)
		_, err = s.New(snowlab.Config{Policy: p, MaxFloorWait: -1,
			Fence: snowlab.NewFence(floor, floor+msNs), Clock: clocksrc.FixedMillis(floor/msNs - 1)})
		require.ErrorIs(t, err, snowlab.ErrClockBackwards, "negative MaxFloorWait never waits")
	})
}

// testReservationLastEnd: after Revoke, Fence.LastEnd covers every ID the
// generator handed out (what a graceful release stores for the successor),
// even with callers racing the revocation.
func testReservationLastEnd(t *testing.T, s Suite) {
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		fence := snowlab.NewFence(0, time.Now().Add(time.Hour).UnixNano())
		g := s.gen(t, snowlab.Config{Policy: p, Fence: fence})
		const workers = 4
		out := make([][]snowlab.ID, workers)
		done := make(chan struct{})
		for i := range workers {
			go func() {
				defer func() { done <- struct{}{} }()
				for {
					id, err := g.NextID()
					if err != nil {
						assert.ErrorIs(t, err, snowlab.ErrNoReservation)
						return
					}
					out[i] = append(out[i], id)
				}
			}()
		}
		time.Sleep(5 * time.Millisecond) // let the workers mint, then revoke under them
		fence.Revoke()
		for range workers {
			<-done
		}
		end := fence.LastEnd()
		for _, ids := range out {
			for _, id := range ids {
				tickEnd := snowlab.DefaultLayout.Decode(id).Time.Add(time.Millisecond).UnixNano()
				require.LessOrEqual(t, tickEnd, end, "id %d ends after LastEnd", id)
			}
		}
	})
}
