package limit

import (
	"sync/atomic"
	"unsafe"
)

// CacheLine is the span one word is padded to: 128 bytes, the generators'
// own (the library's internal engine.CacheLine: two 64-byte lines, which
// x86's adjacent-line prefetcher pulls in pairs, and one line on Apple
// silicon), so that the limit is laid out as they are. The lab imports no
// other module's internal packages, so the figure is written here again.
const CacheLine = 128

// Word is one atomic word alone on its cache lines, so that nothing but
// its own callers contends for it. The zero Word is ready to use.
type Word struct {
	_ [CacheLine]byte
	v atomic.Uint64
	_ [CacheLine - unsafe.Sizeof(atomic.Uint64{})]byte
}

// Advance moves w to max(old+1, now) with one load and one
// compare-and-swap, retried only when another caller moved w in between,
// and returns the value it installed and how many compare-and-swaps it
// lost. Every value Advance returns from one Word is distinct, and each
// caller's values increase.
func (w *Word) Advance(now uint64) (v uint64, lost int) {
	for {
		old := w.v.Load()
		v = max(old+1, now)
		if w.v.CompareAndSwap(old, v) {
			return v, lost
		}
		lost++
	}
}

// shardBits is how many low bits of a PerP value name its word, so that
// the words' values fall in disjoint spaces. It bounds the words to 1,024.
const shardBits = 10

// MaxShards is the most words a PerP holds.
const MaxShards = 1 << shardBits

// PerP is one Word per P: the calling goroutine's P picks its word, as
// shardedgen picks its shard.
type PerP struct{ words []Word }

// NewPerP returns n words, at most MaxShards (n is clamped to 1..MaxShards).
func NewPerP(n int) *PerP { return &PerP{words: make([]Word, min(max(n, 1), MaxShards))} }

// Advance advances the calling goroutine's P's word to max(old+1, now)
// and returns the value shifted left by shardBits with the word's index in
// the low bits (unique across the words while now stays below 2^54), the
// index, and the compare-and-swaps lost. now must fit in 64-ShardBits bits.
func (p *PerP) Advance(now uint64) (v uint64, shard, lost int) {
	shard = procPin()
	procUnpin()
	if shard >= len(p.words) {
		shard %= len(p.words)
	}
	w, lost := p.words[shard].Advance(now)
	return w<<shardBits | uint64(shard), shard, lost
}

// Shard is the index of the word that returned v.
func Shard(v uint64) int { return int(v & (MaxShards - 1)) }

// Value is v without its word's index: the value its word held.
func Value(v uint64) uint64 { return v >> shardBits }

// The fetch-and-add limits' word is a tick above a count, as the
// generators' state word is: tickShift turns clock nanoseconds into ticks
// of 2^20 ns (1.05 ms, about the default layout's millisecond), and the
// count takes the low countBits. 32 bits of count are 4.3e9 IDs in one
// tick, 4e12 IDs/s: no host comes near it, so a fetch-and-add can never
// carry into the tick bits.
const (
	tickShift = 20
	countBits = 32
)

// Take is the least the generators' common path does: load the word, read
// the clock, and while the clock is still in the word's tick (or behind
// it) take the next count with one fetch-and-add, which cannot fail and so
// never retries; when the clock has moved to a later tick, claim it with
// one compare-and-swap (retried only when another caller moved the word
// in between). That is snowlab's single-ID fast path (a fetch-and-add on
// reuse, one compare-and-swap per new tick) with none of its policy,
// window or fence checks, so no generator on one word can do less per
// ID. now is the clock in nanoseconds (the caller reads it, as the
// generators do, once per call). The value is the tick above the count;
// every value Take returns from one Word is distinct and, in the order the
// calls took effect, increasing, whatever now does.
func (w *Word) Take(now uint64) (v uint64, lost int) {
	t := now >> tickShift
	for {
		old := w.v.Load()
		if t <= old>>countBits {
			return w.v.Add(1) - 1, lost
		}
		if w.v.CompareAndSwap(old, t<<countBits|1) {
			return t << countBits, lost
		}
		lost++
	}
}

// TickOf is the clock reading, in nanoseconds rounded down to a tick, of
// a value Take returned (after Value, for a PerP's).
func TickOf(v uint64) uint64 { return v >> countBits << tickShift }

// Take is Word.Take on the calling goroutine's P's word, its value shifted
// left by shardBits with the word's index in the low bits, as Advance.
// Shifted, a value keeps 64-shardBits-countBits = 22 bits of tick: 2^22
// ticks of 2^20 ns are 51 days since the clock's origin.
func (p *PerP) Take(now uint64) (v uint64, shard, lost int) {
	shard = procPin()
	procUnpin()
	if shard >= len(p.words) {
		shard %= len(p.words)
	}
	w, lost := p.words[shard].Take(now)
	return w<<shardBits | uint64(shard), shard, lost
}
