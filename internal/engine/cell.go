package engine

import (
	"sync/atomic"
	"unsafe"

	"github.com/snowlab/snowlab"
)

// CacheLine is the span a hot word is padded to: two 64-byte lines,
// because adjacent-line prefetching on x86 pairs them, and one 128-byte
// line on Apple silicon. atomicgen, shardedgen and the benchmarks' limit
// loops all pad with it, so that the generators and their yardstick are
// laid out alike.
const CacheLine = 128

// ledger is what a state word issues for and counts: its part of the ID
// space and its slow paths.
type ledger struct {
	space Space
	ctr   Counters
}

// Space is the part of the ID space the cell issues from.
func (l *ledger) Space() Space { return l.space }

// Stats returns the cell's slow-path counts.
func (l *ledger) Stats() snowlab.Stats { return l.ctr.Stats() }

// Cell is one lock-free state word with the space it issues from and its
// counters: atomicgen has one, shardedgen one per shard. The word and the
// space Next reads share the first cache line, and a Cell fills whole
// CacheLines, so that cells in a slice, or a cell and what follows it in a
// struct, never share a line.
type Cell struct {
	word atomic.Uint64
	ledger
	_ [CacheLine - (unsafe.Sizeof(atomic.Uint64{})+unsafe.Sizeof(ledger{}))%CacheLine]byte
}

// Init sets the cell up to issue from sp, starting from r's InitialState.
func (s *Cell) Init(r *Rules, sp Space) {
	s.space = sp
	s.word.Store(r.InitialState())
}

// Take fills dst with IDs: see Rules.take. It returns how many IDs it
// wrote; fewer than len(dst) comes with an error.
func (s *Cell) Take(r *Rules, dst []snowlab.ID) (int, error) {
	return r.take(&s.word, &s.ledger, dst, r.sample(&s.word), waitForIDs)
}

// TakeAvailable is Take without waiting: it fills dst with what the cell
// can give now (for Strict, the rest of the current tick) and returns as
// soon as the next ID would need a wait, with no error. A sharded
// generator uses it to drain every shard's current tick before it waits
// on one.
func (s *Cell) TakeAvailable(r *Rules, dst []snowlab.ID) (int, error) {
	return r.take(&s.word, &s.ledger, dst, r.sample(&s.word), stopAtWait)
}

// LockedCell is a Cell for a generator that serialises its calls with a
// lock of its own: its word is a plain uint64, so that the reference
// baseline pays for its mutex and nothing else.
type LockedCell struct {
	word plainWord
	ledger
}

// Init sets the cell up to issue from sp, starting from r's InitialState.
func (s *LockedCell) Init(r *Rules, sp Space) {
	s.space = sp
	s.word.v = r.InitialState()
}

// Take is Cell.Take; the caller must hold its lock.
func (s *LockedCell) Take(r *Rules, dst []snowlab.ID) (int, error) {
	return r.take(&s.word, &s.ledger, dst, r.sample(&s.word), waitForIDs)
}

// plainWord is a state word behind the caller's lock: its CompareAndSwap
// always succeeds, because no one else can have moved it.
type plainWord struct{ v uint64 }

func (w *plainWord) Load() uint64 { return w.v }

func (w *plainWord) CompareAndSwap(_, new uint64) bool {
	w.v = new
	return true
}
