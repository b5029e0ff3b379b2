package snowlab

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mix64 is splitmix64's finalizer: splitmix64.c (Vigna) seeded with 0
// yields these outputs, each the finalizer of the next multiple of the
// golden gamma.
func TestMix64Splitmix64Vectors(t *testing.T) {
	const gamma = 0x9e3779b97f4a7c15
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, 0xf88bb8a8724c81ec}
	var state uint64
	for i, w := range want {
		state += gamma
		assert.Equal(t, w, mix64(state), "output %d", i)
	}
}

// The mapping is part of the contract: rows placed by one version must be
// found by the next. These values pin it (they were checked against a
// separate Python transcription of splitmix64's finalizer and the
// high-word product).
func TestShardPinned(t *testing.T) {
	for _, tc := range []struct {
		id       ID
		n, shard int
	}{
		{0, 16, 0},
		{1, 16, 5},
		{vectorID, 16, 4},
		{vectorID + 1, 16, 12},
		{vectorID, 1000, 287},
		{ID(math.MaxInt64), 7, 2},
	} {
		assert.Equal(t, tc.shard, Shard(tc.id, tc.n), "Shard(%d, %d)", tc.id, tc.n)
	}
}

func TestShardBounds(t *testing.T) {
	for _, id := range randomIDs(7, 2000) {
		assert.Zero(t, Shard(id, 1))
		for _, n := range []int{2, 3, 10, 1 << 20, math.MaxInt32, math.MaxInt} {
			s := Shard(id, n)
			require.True(t, 0 <= s && s < n, "Shard(%d, %d) = %d", id, n, s)
		}
	}
	assert.Panics(t, func() { Shard(1, 0) })
	assert.Panics(t, func() { Shard(1, -3) })
}

// chiSquare is Pearson's statistic of counts against a uniform spread.
func chiSquare(counts []int) float64 {
	total := 0
	for _, c := range counts {
		total += c
	}
	exp := float64(total) / float64(len(counts))
	var x float64
	for _, c := range counts {
		d := float64(c) - exp
		x += d * d / exp
	}
	return x
}

// Critical values of the chi-square distribution at p = 0.001 (the upper
// tail), from the standard table: a uniform spread exceeds them once in a
// thousand inputs. The inputs below are fixed, so each check passes or
// fails the same way on every run.
var chi2Critical001 = map[int]float64{ // degrees of freedom -> bound
	6:   22.458,
	7:   24.322,
	9:   27.877,
	15:  37.697,
	63:  103.442,
	999: 1142.8, // Wilson–Hilferty approximation
}

// idSets are the time-ordered inputs placement must not follow: the IDs a
// fleet mints in order.
func idSets(t *testing.T) map[string][]ID {
	t.Helper()
	l := DefaultLayout
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	first, err := l.Compose(t0, 0, 0)
	require.NoError(t, err)
	const n = 200_000
	sets := map[string][]ID{}
	var consecutive, oneNode, oneTick []ID
	for i := range n {
		consecutive = append(consecutive, first+ID(i))
		id, err := l.Compose(t0.Add(time.Duration(i)*time.Millisecond), 5, 0)
		require.NoError(t, err)
		oneNode = append(oneNode, id)
	}
	// Sequence 0 of every node, over 200 consecutive ticks.
	for tick := range 200 {
		for node := 0; node <= l.MaxNode(); node++ {
			id, err := l.Compose(t0.Add(time.Duration(tick)*time.Millisecond), node, 0)
			require.NoError(t, err)
			oneTick = append(oneTick, id)
		}
	}
	sets["consecutive IDs"] = consecutive
	sets["one node, sequence 0, consecutive ticks"] = oneNode
	sets["every node, sequence 0, 200 ticks"] = oneTick
	return sets
}

func spread(ids []ID, n int, place func(ID, int) int) []int {
	counts := make([]int, n)
	for _, id := range ids {
		counts[place(id, n)]++
	}
	return counts
}

// pairSpread counts the pairs (shard of an ID, shard of the next ID): a
// placement that follows time (round robin by tick, say) is even shard by
// shard but not pair by pair.
func pairSpread(ids []ID, n int, place func(ID, int) int) []int {
	counts := make([]int, n*n)
	for i := 1; i < len(ids); i++ {
		counts[place(ids[i-1], n)*n+place(ids[i], n)]++
	}
	return counts
}

func TestShardSpreadsTimeOrderedIDs(t *testing.T) {
	for name, ids := range idSets(t) {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{7, 10, 16, 1000} {
				if len(ids)/n < 100 {
					continue // keep at least 100 expected per shard
				}
				x := chiSquare(spread(ids, n, Shard))
				bound := chi2Critical001[n-1]
				t.Logf("%d IDs over %d shards: chi-square %.1f (bound %.1f)", len(ids), n, x, bound)
				assert.Less(t, x, bound, "%d shards: chi-square %.1f, bound %.1f at p = 0.001", n, x, bound)
			}
			x := chiSquare(pairSpread(ids, 8, Shard))
			t.Logf("pairs over 8 shards: chi-square %.1f (bound %.1f)", x, chi2Critical001[63])
			assert.Less(t, x, chi2Critical001[63], "pairs of 8 shards: chi-square %.1f", x)
		})
	}
}

// The statistic has teeth: placements that follow the ID's structure fail
// the same bounds on the same inputs.
func TestChiSquareCatchesNaivePlacement(t *testing.T) {
	sets := idSets(t)
	modulo := func(id ID, n int) int { return int(uint64(id) % uint64(n)) }
	byTick := func(id ID, n int) int { return int((uint64(id) >> 22) % uint64(n)) }

	x := chiSquare(spread(sets["one node, sequence 0, consecutive ticks"], 16, modulo))
	assert.Greater(t, x, chi2Critical001[15], "id %% 16 puts a node's ticks on one shard: %.1f", x)

	ids := sets["one node, sequence 0, consecutive ticks"]
	x = chiSquare(spread(ids, 8, byTick))
	assert.Less(t, x, chi2Critical001[7], "round robin by tick is even shard by shard: %.1f", x)
	x = chiSquare(pairSpread(ids, 8, byTick))
	assert.Greater(t, x, chi2Critical001[63], "but follows time pair by pair: %.1f", x)
}
