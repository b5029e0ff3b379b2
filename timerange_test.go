package snowlab

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustRange(t *testing.T, l Layout, from, to time.Time) (ID, ID) {
	t.Helper()
	lo, hi, err := l.Range(from, to)
	require.NoError(t, err, "[%v, %v)", from, to)
	return lo, hi
}

// A day under the default layout: lo is the first ID of its first
// millisecond, hi the first of the next day's, and hi-1 the last ID (node
// 1023, sequence 4095) of the day's last millisecond.
func TestRangeDay(t *testing.T) {
	l := DefaultLayout
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	lo, hi := mustRange(t, l, day, day.AddDate(0, 0, 1))

	// 2024 is a leap year: 366 days of 86,400,000 ms after the epoch.
	assert.Equal(t, ID(int64(366*86_400_000)<<22), lo)
	assert.Equal(t, ID(int64(367*86_400_000)<<22), hi)

	first, err := l.Compose(day, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, first, lo)
	lastMs := day.AddDate(0, 0, 1).Add(-time.Millisecond)
	last, err := l.Compose(lastMs, l.MaxNode(), l.MaxSeq())
	require.NoError(t, err)
	assert.Equal(t, last, hi-1, "the last ID of 23:59:59.999 is inside")
	next, err := l.Compose(day.AddDate(0, 0, 1), 0, 0)
	require.NoError(t, err)
	assert.Equal(t, next, hi, "the first ID of the next day is the exclusive bound")
	assert.True(t, l.Decode(lo-1).Time.Equal(day.Add(-time.Millisecond)), "lo-1 is the day before")
}

// Intervals that meet share their bound: a day cut into hours gives the
// day's range, with no gap and no overlap.
func TestRangeTiles(t *testing.T) {
	l := DefaultLayout
	day := time.Date(2025, 3, 30, 0, 0, 0, 0, time.UTC)
	lo, hi := mustRange(t, l, day, day.Add(24*time.Hour))
	prev := lo
	for h := range 24 {
		a, b := mustRange(t, l, day.Add(time.Duration(h)*time.Hour), day.Add(time.Duration(h+1)*time.Hour))
		assert.Equal(t, prev, a, "hour %d starts where hour %d ended", h, h-1)
		assert.Less(t, a, b)
		prev = b
	}
	assert.Equal(t, hi, prev)
}

// The rounding rule, at a sub-millisecond from and to: each rounds up to the
// next tick, so lo is the first ID whose time is at or after from.
func TestRangeInsideATick(t *testing.T) {
	l := DefaultLayout
	tick := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	half := tick.Add(500 * time.Microsecond)
	lo, hi := mustRange(t, l, half, half.Add(time.Second))
	wantLo, _ := l.Compose(tick.Add(time.Millisecond), 0, 0)
	wantHi, _ := l.Compose(tick.Add(time.Second+time.Millisecond), 0, 0)
	assert.Equal(t, wantLo, lo, "the tick holding from carries a time before it: left out")
	assert.Equal(t, wantHi, hi, "the tick holding to carries a time before it: taken in")

	// Two instants inside one tick: empty.
	lo, hi = mustRange(t, l, tick.Add(time.Microsecond), tick.Add(999*time.Microsecond))
	assert.Equal(t, lo, hi)
	// from == to: empty, at a boundary too.
	lo, hi = mustRange(t, l, tick, tick)
	assert.Equal(t, lo, hi)

	// The zone and a monotonic reading do not matter, only the instant.
	ist := time.FixedZone("IST", 5*3600+30*60)
	lo2, hi2 := mustRange(t, l, half.In(ist), half.Add(time.Second).In(ist))
	wantLo2, wantHi2 := mustRange(t, l, half, half.Add(time.Second))
	assert.Equal(t, wantLo2, lo2)
	assert.Equal(t, wantHi2, hi2)
	now := time.Now()
	lo3, hi3 := mustRange(t, l, now, now.Add(time.Hour))
	lo4, hi4 := mustRange(t, l, now.Round(0), now.Round(0).Add(time.Hour))
	assert.Equal(t, lo4, lo3)
	assert.Equal(t, hi4, hi3)
}

// TestRangeExhaustive checks the documented rule on a layout small enough
// to try every interval whose ends lie on a quarter-tick grid from before
// the epoch to past the horizon: where Range succeeds, a tick's IDs are all
// in [lo, hi) or all out, and in exactly when the tick's start lies in
// [from, to); where it fails, it fails for the documented reason.
func TestRangeExhaustive(t *testing.T) {
	// 29 + 29 bits: valid where int has 32 bits too.
	l := Layout{TimeBits: 5, NodeBits: 29, SeqBits: 29, Unit: time.Millisecond, Epoch: defaultEpoch}
	require.NoError(t, l.Validate())
	const quarters = 4
	step := l.Unit / quarters
	shift := l.NodeBits + l.SeqBits
	var instants []time.Time
	for q := -2 * quarters; q <= (int(l.MaxTick())+3)*quarters; q++ {
		instants = append(instants, l.Epoch.Add(time.Duration(q)*step))
	}
	lastBound := l.Epoch.Add(time.Duration(l.MaxTick()) * l.Unit)
	for _, from := range instants {
		for _, to := range instants {
			lo, hi, err := l.Range(from, to)
			switch {
			case to.Before(from):
				require.ErrorIs(t, err, ErrInvalidConfig, "[%v, %v)", from, to)
				continue
			case from.Before(l.Epoch), to.After(lastBound):
				require.ErrorIs(t, err, ErrOverflow, "[%v, %v)", from, to)
				continue
			}
			require.NoError(t, err, "[%v, %v)", from, to)
			require.LessOrEqual(t, lo, hi)
			for k := int64(0); k <= l.MaxTick(); k++ {
				first := ID(k << shift)
				last := ID(uint64(k+1)<<shift - 1) // 2^63-1 for the last tick
				start := l.Decode(first).Time
				want := !start.Before(from) && start.Before(to)
				inFirst := lo <= first && first < hi
				inLast := lo <= last && last < hi
				require.Equal(t, inFirst, inLast, "[%v, %v) splits tick %d", from, to, k)
				require.Equal(t, want, inFirst, "[%v, %v): tick %d starting %v", from, to, k, start)
			}
		}
	}
}

func TestRangeErrors(t *testing.T) {
	l := DefaultLayout
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	lastTick := l.Horizon().Add(-l.Unit)
	for _, tc := range []struct {
		name     string
		l        Layout
		from, to time.Time
		want     error
	}{
		{"reversed", l, day.Add(time.Millisecond), day, ErrInvalidConfig},
		{"reversed by a nanosecond", l, day.Add(time.Nanosecond), day, ErrInvalidConfig},
		{"before the epoch", l, defaultEpoch.Add(-time.Millisecond), day, ErrOverflow},
		{"both before the epoch", l, defaultEpoch.Add(-time.Hour), defaultEpoch.Add(-time.Minute), ErrOverflow},
		{"to at the horizon", l, day, l.Horizon(), ErrOverflow},
		{"to inside the last tick", l, day, lastTick.Add(time.Nanosecond), ErrOverflow},
		{"to far past the horizon", l, day, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), ErrOverflow},
		{"bad layout", Layout{TimeBits: 40, NodeBits: 10, SeqBits: 12, Unit: time.Millisecond, Epoch: defaultEpoch}, day, day, ErrInvalidLayout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, err := tc.l.Range(tc.from, tc.to)
			assert.ErrorIs(t, err, tc.want)
			assert.Zero(t, lo)
			assert.Zero(t, hi)
		})
	}

	t.Run("the last bound", func(t *testing.T) {
		// The start of the last tick is the latest exclusive bound: hi is
		// the first ID of that tick, and the tick's IDs lie above it.
		lo, hi := mustRange(t, l, day, lastTick)
		assert.Equal(t, ID(l.MaxTick()<<22), hi)
		assert.Less(t, lo, hi)
		assert.Equal(t, ID(math.MaxInt64), hi|ID(1<<22-1))
	})
	t.Run("from the epoch", func(t *testing.T) {
		lo, _ := mustRange(t, l, defaultEpoch, day)
		assert.Zero(t, lo)
	})
	t.Run("zero layout is the default", func(t *testing.T) {
		lo, hi := mustRange(t, Layout{}, day, day.Add(time.Hour))
		wantLo, wantHi := mustRange(t, DefaultLayout, day, day.Add(time.Hour))
		assert.Equal(t, wantLo, lo)
		assert.Equal(t, wantHi, hi)
	})
	t.Run("message names the instants", func(t *testing.T) {
		_, _, err := l.Range(day.Add(time.Hour), day)
		assert.EqualError(t, err, ErrInvalidConfig.Error()+": reversed interval: from 2025-01-01T01:00:00Z is after to 2025-01-01T00:00:00Z")
	})
}

// Other units: 100 µs ticks with a layout epoch off the second.
func TestRangeOtherUnit(t *testing.T) {
	epoch := time.Date(2025, 6, 1, 0, 0, 0, 250_000, time.UTC)
	l := Layout{TimeBits: 42, NodeBits: 8, SeqBits: 13, Unit: 100 * time.Microsecond, Epoch: epoch}
	require.NoError(t, l.Validate())
	from := epoch.Add(time.Hour)
	lo, hi := mustRange(t, l, from, from.Add(150*time.Microsecond))
	assert.Equal(t, ID(36_000_000<<21), lo)
	assert.Equal(t, ID(36_000_002<<21), hi, "150 µs rounds up to two ticks")
}
