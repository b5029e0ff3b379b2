package nodeid_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// offsetClock is the system clock moved by d.
func offsetClock(d time.Duration) clocksrc.Clock {
	base := clocksrc.Default()
	return clocksrc.Func(func() int64 { return base.UnixNano() + int64(d) })
}

// startedAt is a clock that reads start at its first read and moves on
// from there at the pace of the monotonic clock: where a holder's clock
// stands when it starts is then the test's choice, not the scheduler's.
func startedAt(start int64) clocksrc.Clock {
	var once sync.Once
	var t0 time.Time
	return clocksrc.Func(func() int64 {
		once.Do(func() { t0 = time.Now() })
		return start + int64(time.Since(t0))
	})
}

// eventually polls cond every millisecond until it holds, failing t when
// the test's time is nearly up (storetest.UntilTestEnds): how soon is the
// code's business, on a machine whatever its load.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	wait := storetest.UntilTestEnds(t)
	for !cond() {
		select {
		case <-wait.Done():
			t.Fatalf("%s: not by the test's end", what)
		case <-time.After(time.Millisecond):
		}
	}
}

// tickEnd is the end of id's tick, in Unix nanoseconds (default layout).
func tickEnd(id snowlab.ID) int64 {
	return snowlab.DefaultLayout.Decode(id).Time.Add(snowlab.DefaultLayout.Unit).UnixNano()
}

func TestLeaseOverDir(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const window = 300 * time.Millisecond
	clock := clocksrc.Default()

	before := clock.UnixNano()
	l, err := nodeid.Acquire(ctx, nodeid.Dir(dir), nodeid.Options{Window: window, Refresh: 50 * time.Millisecond})
	after := clock.UnixNano()
	require.NoError(t, err)
	defer l.Release(ctx)
	assert.Equal(t, 0, l.Node())
	assert.Equal(t, int64(1), l.Token())
	assert.Equal(t, int64(0), l.Fence().Floor())

	// The first reservation is the clock at Acquire plus the window, and
	// it is on disk.
	first := l.Fence().Until()
	assert.GreaterOrEqual(t, first, before+int64(window))
	assert.LessOrEqual(t, first, after+int64(window))
	u, _ := stored(t, dir, 0)
	assert.GreaterOrEqual(t, u, first, "the reservation is durable before the fence has it")

	g, err := atomicgen.New(l.Config(snowlab.Config{}))
	require.NoError(t, err)
	var last snowlab.ID
	for i := range 10_000 {
		id, err := g.NextID()
		if errors.Is(err, snowlab.ErrNoReservation) {
			// The machine stalled past the window: correct, and the
			// refresher will move the fence on. One refresh may itself
			// land behind the clock on a loaded host, so retry until a
			// refresh reaches past it; any other error ends the wait.
			eventually(t, func() bool {
				id, err = g.NextID()
				return !errors.Is(err, snowlab.ErrNoReservation)
			}, "the refresher moves the fence past the clock")
		}
		require.NoError(t, err)
		require.Greater(t, id, last, "ID %d", i)
		require.Equal(t, 0, snowlab.DefaultLayout.Decode(id).Node)
		require.LessOrEqual(t, tickEnd(id), l.Fence().Until(), "no ID reaches past the reservation")
		last = id
	}

	// The refresher moves the reservation ahead, writing it before the
	// fence moves.
	eventually(t, func() bool { return l.Fence().Until() > first }, "the refresher moves the fence")
	moved := l.Fence().Until()
	u, _ = stored(t, dir, 0)
	assert.GreaterOrEqual(t, u, moved, "the stored reservation is at least the fence's")
	assert.NoError(t, l.Err())
	// ReservedUntil is the fence's: read between two readings of the
	// fence that agree (a refresh between them, every 50 ms, moves it;
	// one reading each assumed none came between the two calls).
	for {
		before, at, after := l.Fence().Until(), l.ReservedUntil(), l.Fence().Until()
		if before == after {
			assert.Equal(t, time.Unix(0, before), at)
			break
		}
	}

	id, err := g.NextID()
	require.NoError(t, err)
	require.Greater(t, id, last)
	last = id

	// Release stores the end of the last tick used, not the reservation;
	// the generator stops.
	require.NoError(t, l.Release(ctx))
	require.NoError(t, l.Release(ctx), "a second release is a no-op")
	_, err = g.NextID()
	assert.ErrorIs(t, err, snowlab.ErrNoReservation)
	u, gen := stored(t, dir, 0)
	assert.Equal(t, tickEnd(last), u, "the final reservation is the end of the last tick used")
	assert.Equal(t, int64(1), gen)
	// What the next holder makes of it is the Store suite's Lease case.
}

// Two leases on one folder in one process hold different ids; a range
// lease holds consecutive ones.
func TestLeasesOverOneDir(t *testing.T) {
	ctx := context.Background()
	s := nodeid.Dir(t.TempDir())
	a, err := nodeid.Acquire(ctx, s, nodeid.Options{Layout: small})
	require.NoError(t, err)
	defer a.Release(ctx)
	b, err := nodeid.Acquire(ctx, s, nodeid.Options{Count: 4, Layout: small})
	require.NoError(t, err)
	defer b.Release(ctx)
	first, count := b.Nodes()
	assert.Equal(t, [2]int{1, 4}, [2]int{first, count})
	c, err := nodeid.Acquire(ctx, s, nodeid.Options{Layout: small})
	require.NoError(t, err)
	defer c.Release(ctx)
	assert.Equal(t, 5, c.Node())

	_, err = nodeid.Acquire(ctx, s, nodeid.Options{Count: 11, Layout: small})
	assert.ErrorIs(t, err, nodeid.ErrNoFreeNode, "6..15 is ten ids")
}

// A successor whose clock is behind its predecessor's stored reservation
// waits for the clock to pass it, within MaxFloorWait, and refuses beyond.
// The predecessor's clock runs an hour ahead, so that no delay of a
// loaded machine between the steps brings the real clock near its
// reservation (with 2 s, the steps assumed the clock moved less than 1 s
// between them), and the wait is scripted from 200 ms before the floor
// (startedAt), not from a reading of the real clock.
func TestLeaseClockBehindStoredReservation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := nodeid.Dir(dir)

	// A predecessor whose clock ran an hour ahead leaves its last tick there.
	ahead, err := nodeid.Acquire(ctx, s, nodeid.Options{Clock: offsetClock(time.Hour), Window: 300 * time.Millisecond})
	require.NoError(t, err)
	g, err := atomicgen.New(ahead.Config(snowlab.Config{}))
	require.NoError(t, err)
	last, err := g.NextID()
	require.NoError(t, err)
	require.NoError(t, ahead.Release(ctx))
	r, _ := stored(t, dir, 0)
	require.Equal(t, tickEnd(last), r)
	require.Greater(t, r, time.Now().Add(time.Second).UnixNano())

	// Given the choice, Acquire passes over the id whose reservation is
	// ahead of the clock, and leaves that reservation as it was.
	other, err := nodeid.Acquire(ctx, s, nodeid.Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, other.Node())
	require.NoError(t, other.Release(ctx))
	r0, _ := stored(t, dir, 0)
	require.Equal(t, r, r0, "passing over an id does not move its reservation")

	only := firstNodes{s, 0} // from here on node id 0 is the only one
	t.Run("too far behind: refused at once", func(t *testing.T) {
		l, err := nodeid.Acquire(ctx, only, nodeid.Options{})
		require.NoError(t, err)
		defer l.Release(ctx)
		require.Equal(t, r, l.Fence().Floor())
		_, err = atomicgen.New(l.Config(snowlab.Config{MaxFloorWait: 100 * time.Millisecond}))
		require.ErrorIs(t, err, snowlab.ErrClockBackwards)
		// Refused without waiting: after a wait the error would say the
		// clock "did not pass" the floor.
		assert.Contains(t, err.Error(), "the floor the previous holder left")
		_, err = atomicgen.New(l.Config(snowlab.Config{MaxFloorWait: -1}))
		assert.ErrorIs(t, err, snowlab.ErrClockBackwards, "a negative MaxFloorWait never waits")
	})
	// That lease minted nothing, so its release left the reservation
	// where its predecessor had put it: a refused start must not push
	// the node id's time forward, or each retry would move it further.
	after, _ := stored(t, dir, 0)
	require.Equal(t, r, after, "a holder that minted nothing does not move the reservation")

	t.Run("behind within MaxFloorWait: waits", func(t *testing.T) {
		l, err := nodeid.Acquire(ctx, only, nodeid.Options{})
		require.NoError(t, err)
		defer l.Release(ctx)
		require.Equal(t, r, l.Fence().Floor())
		// Rather than wait out the hour, start the generator's clock
		// 200 ms behind the floor.
		clock := startedAt(r - int64(200*time.Millisecond))
		require.Less(t, clock.UnixNano(), r)
		g, err := atomicgen.New(l.Config(snowlab.Config{Clock: clock, MaxFloorWait: 5 * time.Second}))
		require.NoError(t, err)
		assert.GreaterOrEqual(t, clock.UnixNano(), r, "New returned once the clock passed the floor")
		id, err := g.NextID()
		require.NoError(t, err)
		assert.GreaterOrEqual(t, snowlab.DefaultLayout.Decode(id).Time.UnixNano(), r, "the first ID starts at or after the floor")
	})
	r, _ = stored(t, dir, 0)

	t.Run("stopped clock within MaxFloorWait: refused at the deadline", func(t *testing.T) {
		l, err := nodeid.Acquire(ctx, only, nodeid.Options{})
		require.NoError(t, err)
		defer l.Release(ctx)
		require.Equal(t, r, l.Fence().Floor())
		stopped := clocksrc.Func(func() int64 { return r - int64(50*time.Millisecond) })
		_, err = atomicgen.New(l.Config(snowlab.Config{Clock: stopped, MaxFloorWait: 100 * time.Millisecond}))
		require.ErrorIs(t, err, snowlab.ErrClockBackwards)
		assert.Contains(t, err.Error(), "did not pass")
	})
}

// firstNodes offers only node ids 0..max of the store it wraps: a store
// on which the node ids a test looks at are the only ones to be had.
type firstNodes struct {
	nodeid.Store
	max int
}

func (s firstNodes) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	return s.Store.Acquire(ctx, layout, count, min(maxNode, s.max))
}
