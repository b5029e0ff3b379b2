package benchgen

import (
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/internal/engine"
)

func TestWordPadded(t *testing.T) {
	var w word
	assert.Equal(t, uintptr(engine.CacheLine), unsafe.Offsetof(w.v))
	assert.Equal(t, uintptr(2*engine.CacheLine), unsafe.Sizeof(w))
}

func TestWordAdvance(t *testing.T) {
	var w word
	assert.Equal(t, uint64(100), w.advance(100))
	assert.Equal(t, uint64(101), w.advance(50)) // the clock is behind: one past the word
	assert.Equal(t, uint64(102), w.advance(101))
	assert.Equal(t, uint64(1000), w.advance(1000))
}

// TestPerPUnique: goroutines sharing a perP with fewer words than Ps get
// distinct values, increasing per word, from a clock that stalls and lags.
func TestPerPUnique(t *testing.T) {
	const g, n = 4, 5_000
	p := newPerP(max(runtime.GOMAXPROCS(0)-1, 1))
	streams := make([][]uint64, g)
	var wg sync.WaitGroup
	for i := range g {
		wg.Go(func() {
			for k := range n {
				streams[i] = append(streams[i], p.advance(uint64(k/3)))
			}
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for _, s := range streams {
		last := map[uint64]uint64{}
		for _, v := range s {
			require.False(t, seen[v], "%d twice", v)
			seen[v] = true
			shard := v & (1<<shardBits - 1)
			if prev, ok := last[shard]; ok {
				require.Less(t, prev>>shardBits, v>>shardBits)
			}
			last[shard] = v
		}
	}
	assert.Len(t, newPerP(0).words, 1)
	assert.Len(t, newPerP(1<<20).words, 1<<shardBits)
}
