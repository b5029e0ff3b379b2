package alternatives

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatedFetcher is a segment row: each fetch advances max_id by step, but
// only when the test lets it through, so the test decides when a
// background fetch completes.
type gatedFetcher struct {
	step    int64
	maxID   int64
	calls   chan struct{} // one value per fetch started
	release chan error    // the test sends nil to complete a fetch, or an error
}

func newGatedFetcher(step int64) *gatedFetcher {
	return &gatedFetcher{step: step, calls: make(chan struct{}, 16), release: make(chan error, 16)}
}

func (g *gatedFetcher) fetch(ctx context.Context) (int64, error) {
	g.calls <- struct{}{}
	select {
	case err := <-g.release:
		if err != nil {
			return 0, err
		}
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	g.maxID += g.step
	return g.maxID, nil
}

func next(t *testing.T, a *allocator) int64 {
	t.Helper()
	id, err := a.Next(context.Background())
	require.NoError(t, err)
	return id
}

func TestAllocatorSingleBuffer(t *testing.T) {
	g := newGatedFetcher(10)
	a, err := newAllocator(10, false, g.fetch)
	require.NoError(t, err)
	for range 3 {
		g.release <- nil
	}
	var got []int64
	for range 25 {
		got = append(got, next(t, a))
		assert.False(t, a.Prefetching(), "a single buffer fetches only when the block is spent")
	}
	for i, id := range got {
		assert.Equal(t, int64(i+1), id, "blocks [1,10], [11,20], [21,30] handed out in order")
	}
	assert.Len(t, g.calls, 3)
	assert.Len(t, a.Trips(), 3)
	assert.Equal(t, int64(5), a.Remaining())
}

// TestAllocatorDoubleBuffer: the next block is fetched once 10% of the
// current one is handed out, in the background; the client moves to it
// without waiting when it arrived in time, and waits for it when not.
func TestAllocatorDoubleBuffer(t *testing.T) {
	g := newGatedFetcher(20)
	a, err := newAllocator(20, true, g.fetch)
	require.NoError(t, err)
	g.release <- nil // the first block: nothing held, the client waits for it
	assert.Equal(t, int64(1), next(t, a))
	<-g.calls
	assert.False(t, a.Prefetching(), "1 of 20 handed out: below 10%")
	assert.Equal(t, int64(2), next(t, a))
	assert.True(t, a.Prefetching(), "2 of 20 handed out (10%): the next block is on its way")
	<-g.calls // the prefetch started, and waits for the test
	for want := int64(3); want <= 20; want++ {
		assert.Equal(t, want, next(t, a), "the current block goes on while the next is fetched")
	}
	assert.Zero(t, a.Remaining())
	assert.Len(t, g.calls, 0, "one fetch in flight at a time")
	g.release <- nil // the prefetch completes: [21, 40]
	assert.Equal(t, int64(21), next(t, a))
	assert.Equal(t, int64(22), next(t, a))
	assert.True(t, a.Prefetching(), "10% of the new block: the one after is fetched")
	<-g.calls
	g.release <- nil
	for want := int64(23); want <= 60; want++ {
		assert.Equal(t, want, next(t, a))
	}
	assert.True(t, a.Prefetching(), "[41, 60] is 10% used: a fetch is in flight")
	<-g.calls
	g.release <- nil
	require.NoError(t, a.Close())
	assert.Len(t, a.Trips(), 4, "the first block, two prefetches used, and the one in flight at Close")
}

func TestAllocatorErrors(t *testing.T) {
	boom := errors.New("server went away")
	g := newGatedFetcher(5)
	a, err := newAllocator(5, true, g.fetch)
	require.NoError(t, err)
	g.release <- boom
	_, err = a.Next(context.Background())
	assert.ErrorIs(t, err, boom)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, err = newAllocator(5, true, g.fetch)
	require.NoError(t, err)
	_, err = a.Next(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	require.NoError(t, a.Close())

	for _, step := range []int64{0, -1, maxSize + 1} {
		_, err := newAllocator(step, false, g.fetch)
		assert.ErrorIs(t, err, errOptions, "step %d", step)
	}
}
