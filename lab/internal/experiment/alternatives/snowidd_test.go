package alternatives

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
)

// TestSnowidd runs both snowidd schemes briefly with 1 and 3 clients
// against a replica of its own, and checks what must hold at any speed:
// no ID twice, a round trip per ID or per batch, one client's IDs in its
// order, and the unbatched IDs, minted in order on one node, reordered by
// no more than the longest call.
func TestSnowidd(t *testing.T) {
	f := fleet{snowidd: fixture.StartReplica(t)}
	const batch = 50
	const age = 2 * time.Millisecond
	for _, sc := range []schemeSpec{{Kind: snowidd}, {Kind: snowidd, Size: batch}, {Kind: snowidd, Size: batch, MaxAge: age}} {
		for _, n := range []int{1, 3} {
			what := sc.name() + ", " + clients(n)
			p, err := runPoint(context.Background(), f, sc, n, pace{duration: 150 * time.Millisecond, demand: 6_000, perCap: 10_000})
			require.NoError(t, err, what)
			require.Empty(t, p.Error, what)
			require.Positive(t, p.IDs, what)
			assert.Zero(t, p.Disorder.Duplicates, "%s: no ID handed out twice", what)
			assert.Equal(t, p.IDs, p.PerID.Count, what)
			if sc.Size == 0 {
				assert.Equal(t, p.IDs, p.Trip.Count, "%s: one round trip per ID", what)
				assert.LessOrEqual(t, p.Disorder.Window, p.PerID.Max, "%s: within the longest call", what)
			} else {
				assert.GreaterOrEqual(t, p.Trip.Count*batch, p.IDs, "%s: a round trip per %d IDs", what, batch)
			}
			if sc.Size > 0 && sc.MaxAge == 0 {
				assert.LessOrEqual(t, p.Trip.Count, p.IDs/batch+int64(n), "%s: no more round trips than batches", what)
			}
			if sc.MaxAge > 0 {
				// An ID leaves at most the age after its batch was asked
				// for, and every larger ID was minted after that.
				assert.LessOrEqual(t, p.Disorder.Window, sc.MaxAge+p.PerID.Max, "%s: within the age bound", what)
			}
			if n == 1 {
				assert.Zero(t, p.Disorder.AdjacentInverted, "%s: one client is in order", what)
				assert.Zero(t, p.Disorder.Window, what)
			}
		}
	}
}

// TestSnowiddSourceRefuses: no replica, a bad URL or one that does not
// answer is an error before the run's clock starts, naming what is wrong.
func TestSnowiddSourceRefuses(t *testing.T) {
	_, err := newSnowiddSource("", 0, 0)
	assert.ErrorIs(t, err, errOptions)
	assert.ErrorContains(t, err, "no snowidd replica")
	_, err = newSnowiddSource("grpc://127.0.0.1:1", 0, 0)
	assert.ErrorIs(t, err, errOptions)
	assert.ErrorContains(t, err, "grpc://127.0.0.1:1")
	_, err = newSnowiddSource("http://127.0.0.1:1", 10, 0)
	assert.ErrorContains(t, err, "snowidd at http://127.0.0.1:1")
}

// TestSeriesSourceMaxAge: what is left of a batch asked for longer ago
// than the age bound is dropped, never handed out; without a bound it is.
func TestSeriesSourceMaxAge(t *testing.T) {
	next := int64(0)
	fetch := func(context.Context) ([]int64, error) {
		ids := make([]int64, 5)
		for i := range ids {
			next++
			ids[i] = next
		}
		return ids, nil
	}
	for _, tc := range []struct {
		maxAge time.Duration
		want   int64 // after one ID and an hour
	}{{time.Minute, 6}, {0, 2}} {
		next = 0
		s := &seriesSource{fetch: fetch, close: func(context.Context) error { return nil }, maxAge: tc.maxAge}
		id, err := s.Next(context.Background())
		require.NoError(t, err)
		assert.Equal(t, int64(1), id)
		s.fetched = s.fetched.Add(-time.Hour) // the batch was asked for an hour ago
		id, err = s.Next(context.Background())
		require.NoError(t, err)
		assert.Equal(t, tc.want, id, "max age %v", tc.maxAge)
		assert.Len(t, s.Trips(), int(tc.want/5)+1, "max age %v: round trips", tc.maxAge)
	}
}
