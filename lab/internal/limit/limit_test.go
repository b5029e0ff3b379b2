package limit

import (
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWordPadded(t *testing.T) {
	var w Word
	assert.Equal(t, uintptr(CacheLine), unsafe.Offsetof(w.v))
	assert.Equal(t, uintptr(2*CacheLine), unsafe.Sizeof(w))
}

func TestWordAdvance(t *testing.T) {
	var w Word
	v, lost := w.Advance(100)
	assert.Equal(t, uint64(100), v)
	assert.Zero(t, lost)
	v, _ = w.Advance(50) // the clock is behind the word: one past it
	assert.Equal(t, uint64(101), v)
	v, _ = w.Advance(101)
	assert.Equal(t, uint64(102), v)
	v, _ = w.Advance(1000)
	assert.Equal(t, uint64(1000), v)
}

// TestUnique: many goroutines on one Word and on a PerP with fewer words
// than Ps get distinct values, increasing per goroutine (per word for
// PerP), whatever the clock does.
func TestUnique(t *testing.T) {
	const g, n = 8, 20_000
	var w Word
	p := NewPerP(max(runtime.GOMAXPROCS(0)-1, 1))
	var wg sync.WaitGroup
	single, perP := make([][]uint64, g), make([][]uint64, g)
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range n {
				now := uint64(k / 3) // a clock that stalls and lags
				v, _ := w.Advance(now)
				single[i] = append(single[i], v)
				pv, shard, _ := p.Advance(now)
				require.Equal(t, shard, Shard(pv))
				perP[i] = append(perP[i], pv)
			}
		}()
	}
	wg.Wait()
	for name, streams := range map[string][][]uint64{"word": single, "per-p": perP} {
		seen := map[uint64]bool{}
		for _, s := range streams {
			last := map[int]uint64{}
			for _, v := range s {
				require.False(t, seen[v], "%s: %d twice", name, v)
				seen[v] = true
				if prev, ok := last[Shard(v)]; ok && name == "per-p" {
					require.Less(t, Value(prev), Value(v))
				}
				last[Shard(v)] = v
			}
		}
		for _, s := range single {
			for i := 1; i < len(s); i++ {
				require.Less(t, s[i-1], s[i])
			}
		}
	}
}

func TestNewPerPClamps(t *testing.T) {
	assert.Equal(t, 1, NewPerP(0).shards())
	assert.Equal(t, MaxShards, NewPerP(1<<20).shards())
}

// TestWordTake: within a tick Take counts up by fetch-and-add; a later tick
// is claimed with the count at 0; a clock behind the word's tick takes
// the next count of the word's.
func TestWordTake(t *testing.T) {
	var w Word
	tick := uint64(1) << tickShift
	v, lost := w.Take(5 * tick)
	assert.Equal(t, uint64(5)<<countBits, v)
	assert.Zero(t, lost)
	v, _ = w.Take(5*tick + 7) // same tick: the next count
	assert.Equal(t, uint64(5)<<countBits|1, v)
	v, _ = w.Take(3 * tick) // behind: still the next count
	assert.Equal(t, uint64(5)<<countBits|2, v)
	v, _ = w.Take(9 * tick)
	assert.Equal(t, uint64(9)<<countBits, v)
	assert.Equal(t, 9*tick, TickOf(v))
}

// TestTakeUnique is TestUnique for Take: values distinct, increasing per
// goroutine (per word for PerP), on a clock that stalls and lags.
func TestTakeUnique(t *testing.T) {
	const g, n = 8, 20_000
	var w Word
	p := NewPerP(max(runtime.GOMAXPROCS(0)-1, 1))
	var wg sync.WaitGroup
	single, perP := make([][]uint64, g), make([][]uint64, g)
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range n {
				now := uint64(k/3+(i%3)*50) << tickShift
				v, _ := w.Take(now)
				single[i] = append(single[i], v)
				pv, _, _ := p.Take(now)
				perP[i] = append(perP[i], pv)
			}
		}()
	}
	wg.Wait()
	seen, seenP := map[uint64]bool{}, map[uint64]bool{}
	for i := range g {
		for k, v := range single[i] {
			require.False(t, seen[v], "word: %d twice", v)
			seen[v] = true
			if k > 0 {
				require.Less(t, single[i][k-1], v)
			}
		}
		for _, v := range perP[i] {
			require.False(t, seenP[v], "per-p: %d twice", v)
			seenP[v] = true
		}
	}
}
