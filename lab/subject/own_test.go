package subject

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
)

func byName(t *testing.T, name string) Subject {
	t.Helper()
	own := Own(1)
	i := slices.IndexFunc(own, func(s Subject) bool { return s.Name == name })
	require.NotEqual(t, -1, i, "no subject %q", name)
	return own[i]
}

// aboutNow checks that tm, the time of an ID minted between before and
// after by a generator made in between (its clock too), lies between them,
// give or take a tick and the time that took: its clock's anchor was
// sampled in it, and is off by at most that much. A fixed bound ("within
// 2 s of time.Now") assumed no loaded machine stops a test that long.
func aboutNow(t *testing.T, tm, before, after time.Time, name string) {
	t.Helper()
	loose := after.Sub(before)
	assert.False(t, tm.Before(before.Add(-loose-snowlab.DefaultLayout.Unit)) || tm.After(after.Add(loose)),
		"%s: the ID's time %v, minted between %v and %v", name, tm, before, after)
}

func TestOwnSubjects(t *testing.T) {
	subs := Own(1)
	require.Len(t, subs, 8)
	names := map[string]bool{}
	for _, s := range subs {
		assert.False(t, names[s.Name], "duplicate name %s", s.Name)
		names[s.Name] = true
		before := time.Now()
		m, err := s.New()
		require.NoError(t, err, s.Name)
		id, err := m.Next()
		require.NoError(t, err, s.Name)
		tm, node := s.Decode(id)
		aboutNow(t, tm, before, time.Now(), s.Name)
		assert.GreaterOrEqual(t, node, 1, s.Name)
	}
}

// TestFillWidensInPlace: the batch path's in-place widening keeps every ID
// and its order, for sizes around the edges of the trick.
func TestFillWidensInPlace(t *testing.T) {
	s := byName(t, "atomicgen/monotonic")
	m, err := s.New()
	require.NoError(t, err)
	for _, n := range []int{0, 1, 2, 3, 4096, 10_001} {
		dst := make([]ID, n)
		got, err := Fill(m, dst)
		require.NoError(t, err)
		require.Equal(t, n, got)
		for i := 1; i < n; i++ {
			require.True(t, dst[i-1].Less(dst[i]), "n=%d i=%d", n, i)
			require.Zero(t, dst[i].Hi)
		}
	}
}

// counting is a Minter with only Next: Fill loops it, Stats is zero.
type counting struct{ n uint64 }

func (c *counting) Next() (ID, error) { c.n++; return ID{Lo: c.n}, nil }

// TestOptionalInterfaces: Fill and Stats use a minter's batch call and
// counts where it has them, and fall back where it does not.
func TestOptionalInterfaces(t *testing.T) {
	c := &counting{}
	dst := make([]ID, 5)
	n, err := Fill(c, dst)
	require.NoError(t, err)
	assert.Equal(t, 5, n)
	assert.Equal(t, []ID{{Lo: 1}, {Lo: 2}, {Lo: 3}, {Lo: 4}, {Lo: 5}}, dst)
	assert.Equal(t, snowlab.Stats{}, Stats(c))

	s := byName(t, "atomicgen/strict")
	m, err := s.New()
	require.NoError(t, err)
	_, ok := m.(Filler)
	assert.True(t, ok, "own generators have a batch call")
	assert.True(t, s.Batch)
	_, ok = m.(StatsReporter)
	assert.True(t, ok, "own generators count their slow paths")
}

// perCaller is a PerCaller counting the callers it made.
type perCaller struct {
	counting
	made int
}

func (p *perCaller) NewCaller() Minter { p.made++; return &counting{n: uint64(p.made) << 32} }

// TestCallers: a PerCaller gives each goroutine a minter of its own; any
// other minter is every goroutine's.
func TestCallers(t *testing.T) {
	p := &perCaller{}
	got := Callers(p, 3)
	require.Len(t, got, 3)
	assert.Equal(t, 3, p.made)
	for i, m := range got {
		assert.NotSame(t, p, m)
		id, err := m.Next()
		require.NoError(t, err)
		assert.Equal(t, uint64(i+1)<<32+1, id.Lo, "caller %d draws on its own state", i)
	}
	c := &counting{}
	for _, m := range Callers(c, 2) {
		assert.Same(t, c, m)
	}
	assert.Empty(t, Callers(c, 0))
}

func TestSlotCapacity(t *testing.T) {
	for _, tc := range []struct {
		s    Subject
		want float64
	}{
		{Subject{Strict: true, PerTick: 4096, Tick: time.Millisecond}, 4096},
		{Subject{Strict: true, PerTick: 4096, Tick: time.Millisecond, Nodes: 4, Shards: 4}, 4096},
		{Subject{Strict: true, PerTick: 4096, Tick: time.Millisecond, Nodes: 1, Shards: 4}, 1024},
		{Subject{PerTick: 4096, Tick: time.Millisecond}, 0}, // not strict
		{Subject{Strict: true}, 0},
	} {
		assert.Equal(t, tc.want, tc.s.SlotCapacity(), "%+v", tc.s)
	}
	// snowlab's sharded subjects: a node per shard holds a whole node's
	// sequence space per tick, a split sequence a share of one node's.
	assert.Equal(t, 4096.0, byName(t, "shardedgen/node-per-shard/strict").SlotCapacity())
	split := byName(t, "shardedgen/split-sequence/strict")
	assert.InDelta(t, 4096.0/float64(split.Shards), split.SlotCapacity(), 1e-9)
}

// TestOwnLimits: each of snowlab's generators is read against the
// fetch-and-add limit of its kind (one word, or one per P), because its
// common path is a fetch-and-add on the default layout; a layout too
// tight for fetch-add's overshoot (internal/engine's TestFetchAddRoom
// case) gets the compare-and-swap limits.
func TestOwnLimits(t *testing.T) {
	for _, s := range Own(1) {
		want := LimitClockAdd
		if strings.HasPrefix(s.Name, "shardedgen/") {
			want = LimitPerPAdd
		}
		assert.Equal(t, want, s.Limit, s.Name)
	}
	tight := snowlab.Layout{TimeBits: 50, NodeBits: 1, SeqBits: 12, Unit: time.Nanosecond, Epoch: snowlab.DefaultLayout.Epoch}
	assert.True(t, addsOn(snowlab.Layout{}))
	assert.True(t, addsOn(snowlab.DefaultLayout))
	assert.False(t, addsOn(tight))
	assert.False(t, addsOn(snowlab.Layout{TimeBits: 64}))
	assert.Equal(t, LimitClockCAS, LimitFor(false, false))
	assert.Equal(t, LimitPerP, LimitFor(true, false))
}

// TestLimitSubjects: every limit subject mints distinct IDs (increasing
// ones where it mints on one word) that decode to about now, and names no
// limit of its own.
func TestLimitSubjects(t *testing.T) {
	before := time.Now() // the limits' clock is made by Limits
	subs := Limits()
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.Name
		assert.True(t, s.Physical, s.Name)
		assert.Empty(t, s.Limit, s.Name)
		m, err := s.New()
		require.NoError(t, err, s.Name)
		// A per-P limit mints on the calling P's own word, and a goroutine
		// can move between Ps (preemption, the race detector's scheduling):
		// its IDs are distinct but increase only within one P's word, as
		// shardedgen's increase within a shard.
		perP := s.Name == LimitPerP || s.Name == LimitPerPAdd
		seen := make(map[ID]bool, 1000)
		var last ID
		for k := range 1000 {
			id, err := m.Next()
			require.NoError(t, err, s.Name)
			require.False(t, seen[id], "%s: %v twice", s.Name, id)
			seen[id] = true
			if k > 0 && !perP {
				require.Less(t, last.Lo, id.Lo, s.Name)
			}
			last = id
		}
		tm, _ := s.Decode(last)
		aboutNow(t, tm, before, time.Now(), s.Name)
	}
	assert.Equal(t, []string{LimitClockCAS, LimitPerP, LimitClockAdd, LimitPerPAdd}, names)
}
