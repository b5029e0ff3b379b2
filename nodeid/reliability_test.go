package nodeid_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/mutexgen"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/shardedgen"
)

// requireNoDuplicates sorts a copy of ids and fails on the first repeat.
func requireNoDuplicates(t *testing.T, ids []snowlab.ID) {
	t.Helper()
	s := slices.Clone(ids)
	slices.Sort(s)
	dups := 0
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			dups++
		}
	}
	require.Zero(t, dups, "duplicates among %d IDs", len(ids))
}

// Two leases on one folder hold node ids 0 and 1. A node-per-shard
// generator with two shards over either would mint on an id the lease does
// not hold (the review saw 127,968 duplicates in 600,000 IDs): it is
// refused. Shards 0 takes what the lease holds: one shard on a lease of
// one id, two on a lease of two, and the two leases' generators then share
// nothing.
func TestLeaseShardsMustBeHeld(t *testing.T) {
	ctx := context.Background()
	store := nodeid.Dir(t.TempDir())
	a, err := nodeid.Acquire(ctx, store, nodeid.Options{})
	require.NoError(t, err)
	b, err := nodeid.Acquire(ctx, store, nodeid.Options{})
	require.NoError(t, err)
	for _, l := range []*nodeid.Lease{a, b} {
		_, err := shardedgen.New(shardedgen.Config{Config: l.Config(snowlab.Config{}), Shards: 2})
		require.ErrorIs(t, err, snowlab.ErrInvalidNode, "2 shards over a lease of one id")
		assert.Contains(t, err.Error(), "not held")
		g, err := shardedgen.New(shardedgen.Config{Config: l.Config(snowlab.Config{})})
		require.NoError(t, err, "Shards 0 takes the lease's one id")
		assert.Equal(t, 1, g.Shards())
		// Moving the node past the lease's range is refused too.
		cfg := l.Config(snowlab.Config{})
		cfg.Node++
		_, err = atomicgen.New(cfg)
		require.ErrorIs(t, err, snowlab.ErrInvalidNode)
		_, err = shardedgen.New(shardedgen.Config{Config: cfg, Shards: 1, Mode: shardedgen.SplitSequence})
		require.ErrorIs(t, err, snowlab.ErrInvalidNode)
	}
	require.NoError(t, a.Release(ctx))
	require.NoError(t, b.Release(ctx))

	var ids []snowlab.ID
	for _, shards := range []int{2, 0} {
		l, err := nodeid.Acquire(ctx, store, nodeid.Options{Count: 2})
		require.NoError(t, err)
		defer l.Release(ctx)
		g, err := shardedgen.New(shardedgen.Config{Config: l.Config(snowlab.Config{Policy: snowlab.Monotonic}), Shards: shards})
		require.NoError(t, err)
		assert.Equal(t, 2, g.Shards(), "Shards %d over a lease of two ids", shards)
		dst := make([]snowlab.ID, 100_000)
		for range 3 {
			n, err := g.NextIDs(dst)
			require.NoError(t, err)
			ids = append(ids, dst[:n]...)
		}
	}
	requireNoDuplicates(t, ids)
}

// Fifty generators built one after another from one lease, ten IDs each:
// every one starts past what the earlier ones used (the review saw 490
// duplicates in 500 IDs), whichever generator package builds it.
func TestLeaseSuccessiveGenerators(t *testing.T) {
	ctx := context.Background()
	l, err := nodeid.Acquire(ctx, nodeid.Dir(t.TempDir()), nodeid.Options{Count: 2})
	require.NoError(t, err)
	defer l.Release(ctx)
	builders := []func(snowlab.Config) (snowlab.Generator, error){
		func(c snowlab.Config) (snowlab.Generator, error) { return atomicgen.New(c) },
		func(c snowlab.Config) (snowlab.Generator, error) { return mutexgen.New(c) },
		func(c snowlab.Config) (snowlab.Generator, error) {
			return shardedgen.New(shardedgen.Config{Config: c, Shards: 2})
		},
	}
	var ids []snowlab.ID
	for i := range 50 {
		p := snowlab.Policy(i % 2)
		g, err := builders[i%3](l.Config(snowlab.Config{Policy: p}))
		require.NoError(t, err)
		for range 10 {
			id, err := g.NextID()
			require.NoError(t, err)
			ids = append(ids, id)
		}
	}
	requireNoDuplicates(t, ids)
	assert.LessOrEqual(t, tickEnd(slices.Max(ids)), l.Fence().LastEnd())
}

// Window and Refresh are checked when the lease is taken: a window of 2 ns
// panicked in the refresher (a ticker of 0), and a refresh slower than the
// window let the reservation run out between refreshes (817 refusals in
// 1.2 s on a healthy store).
func TestLeaseOptionsValidated(t *testing.T) {
	ctx := context.Background()
	store := nodeid.Dir(t.TempDir())
	for _, tc := range []struct {
		name string
		opts nodeid.Options
		want string
	}{
		{"2ns window", nodeid.Options{Window: 2}, "2ns"},
		{"refresh after the window", nodeid.Options{Window: 100 * time.Millisecond, Refresh: 400 * time.Millisecond}, "400ms"},
		{"refresh at the window", nodeid.Options{Window: 100 * time.Millisecond, Refresh: 100 * time.Millisecond}, "100ms"},
		{"negative window", nodeid.Options{Window: -time.Second}, "-1s"},
		{"negative refresh", nodeid.Options{Refresh: -time.Second}, "-1s"},
		{"negative count", nodeid.Options{Count: -3}, "-3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nodeid.Acquire(ctx, store, tc.opts)
			require.ErrorIs(t, err, snowlab.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	l, err := nodeid.Acquire(ctx, store, nodeid.Options{Window: nodeid.MinWindow})
	require.NoError(t, err, "the shortest window is accepted")
	require.NoError(t, l.Release(ctx))
}

// A reservation file whose generation is the largest int64 cannot give a
// next token: the node id is refused with an error naming the file, instead
// of writing token MinInt64 and then reading its own file as corrupt.
func TestDirGenerationExhausted(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "slot-0000.reserved")
	require.NoError(t, os.WriteFile(name, fmt.Appendf(nil, "%d %d\n", 1000, int64(math.MaxInt64)), 0o644))
	_, err := nodeid.Dir(dir).Acquire(context.Background(), snowlab.Layout{}, 1, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), name)
	assert.Contains(t, err.Error(), "generation")
}

// A stored reservation near the end of int64 time does not wrap the
// fence's Until into 1677 (the reservation is the clock plus the window,
// saturated), and Acquire prefers any other id when it has the choice.
func TestLeaseReservationNearMaxInt64(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ahead := int64(math.MaxInt64 - 1000)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slot-0000.reserved"), fmt.Appendf(nil, "%d 1\n", ahead), 0o644))

	l, err := nodeid.Acquire(ctx, nodeid.Dir(dir), nodeid.Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, l.Node(), "the id with a reservation far ahead is passed over")
	require.NoError(t, l.Release(ctx))

	l, err = nodeid.Acquire(ctx, firstNodes{nodeid.Dir(dir), 0}, nodeid.Options{})
	require.NoError(t, err)
	assert.Equal(t, ahead, l.Fence().Floor())
	assert.Equal(t, int64(math.MaxInt64), l.Fence().Until(), "saturated, not wrapped")
	_, err = atomicgen.New(l.Config(snowlab.Config{}))
	require.ErrorIs(t, err, snowlab.ErrClockBackwards, "a floor centuries ahead is refused at once")
	require.NoError(t, l.Release(ctx))
	r, _ := stored(t, dir, 0)
	assert.Equal(t, ahead, r, "a holder that minted nothing leaves the reservation as it found it")
}

// Releasing a lease through which nothing was minted, again and again,
// leaves the reservation where it was: the review saw the lead over the
// clock grow from 26 s to 51 s over ten attempts. The reservation is an
// hour ahead: each attempt must find it further than MaxFloorWait (10 s)
// away, and with 23 s the ten attempts assumed they took less than 13 s.
func TestLeaseRetriesDoNotPushReservation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ahead := time.Now().Add(time.Hour).UnixNano()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slot-0000.reserved"), fmt.Appendf(nil, "%d 1\n", ahead), 0o644))
	only := firstNodes{nodeid.Dir(dir), 0}
	for range 10 {
		l, err := nodeid.Acquire(ctx, only, nodeid.Options{})
		require.NoError(t, err)
		_, err = atomicgen.New(l.Config(snowlab.Config{}))
		require.ErrorIs(t, err, snowlab.ErrClockBackwards)
		require.NoError(t, l.Release(ctx))
	}
	r, gen := stored(t, dir, 0)
	assert.Equal(t, ahead, r)
	assert.Equal(t, int64(11), gen)
}

// A lease with a layout of its own hands it to the generators it
// configures, so the ids it holds and the ids they mint agree.
func TestLeaseConfigCarriesLayout(t *testing.T) {
	ctx := context.Background()
	small := snowlab.Layout{TimeBits: 42, NodeBits: 8, SeqBits: 13, Unit: time.Millisecond, Epoch: snowlab.DefaultLayout.Epoch}
	l, err := nodeid.Acquire(ctx, nodeid.Dir(t.TempDir()), nodeid.Options{Layout: small})
	require.NoError(t, err)
	defer l.Release(ctx)
	assert.Equal(t, small, l.Config(snowlab.Config{}).Layout)
}
