package benchgen

import (
	"sync/atomic"
	"unsafe"

	"github.com/snowlab/snowlab/internal/engine"
)

// The bare compare-and-swap benchmarks run the lab's physical-limit loops
// (package lab/internal/limit, its limit/clock+cas and limit/per-p
// subjects), so that a generator's bare benchmarks and its lab figures are
// read against the same yardstick. The library cannot import the lab (a
// module that requires it), so the two loops are copied here: word and
// perP below do what limit.Word and limit.PerP do, less the count of lost
// compare-and-swaps that only the lab reports, and nothing more.

// word is one atomic word alone on its cache lines, padded with the
// generators' own engine.CacheLine so that it is laid out as they are.
type word struct {
	_ [engine.CacheLine]byte
	v atomic.Uint64
	_ [engine.CacheLine - unsafe.Sizeof(atomic.Uint64{})]byte
}

// advance moves w to max(old+1, now) with one load and one
// compare-and-swap, retried only when another caller moved w in between,
// and returns the value it installed: distinct per call, increasing per
// caller.
func (w *word) advance(now uint64) uint64 {
	for {
		old := w.v.Load()
		v := max(old+1, now)
		if w.v.CompareAndSwap(old, v) {
			return v
		}
	}
}

// shardBits is how many low bits of a perP value name its word: 10, so at
// most 1,024 words, as in the lab's limit.PerP.
const shardBits = 10

// perP is one word per P: the calling goroutine's P picks its word, as
// shardedgen picks its shard.
type perP struct{ words []word }

// newPerP returns n words, clamped to 1..2^shardBits.
func newPerP(n int) *perP { return &perP{words: make([]word, min(max(n, 1), 1<<shardBits))} }

// advance advances the calling goroutine's P's word to max(old+1, now)
// and returns the value shifted left by shardBits with the word's index in
// the low bits. now must fit in 64-shardBits bits.
func (p *perP) advance(now uint64) uint64 {
	shard := procPin()
	procUnpin()
	if shard >= len(p.words) {
		shard %= len(p.words)
	}
	return p.words[shard].advance(now)<<shardBits | uint64(shard)
}
