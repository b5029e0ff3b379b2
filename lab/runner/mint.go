package runner

import (
	"time"
	"unsafe"
)

// worker is one goroutine's state across its calls: its previous ID, the
// order violations it saw, and its word of the shared line (written only
// in a build with the snowlab_plant_shared tag).
type worker struct {
	last  uint64
	bad   int64
	slot  *uint64
	carry int // the calls plant's fraction of a call carried between batches
}

func newWorker(k int) *worker { return &worker{slot: &sharedLine()[k%lineWords]} }

// mint makes n calls of next, each followed by the planted work, after
// the planted extra calls (neither in a clean build: plant and extra are
// then empty and inlined away). Count mode and the timed slices both run
// this loop, so that an instruction count describes what a slice
// executes.
func mint(next func() (uint64, error), n int, w *worker) error {
	if err := extra(next, n, w); err != nil {
		return err
	}
	last, bad, slot := w.last, w.bad, w.slot
	for i := 0; i < n; i++ {
		id, err := next()
		if err != nil {
			w.last, w.bad = last, bad
			return err
		}
		if id <= last {
			bad++
		}
		last = id
		plant(id, slot)
	}
	w.last, w.bad = last, bad
	return nil
}

// batch is how many calls mint makes between two looks at the clock in a
// timed slice: a monotonic clock read (about 20-40 ns through the vDSO)
// spread over 128 calls is under half a nanosecond a call.
const batch = 128

// mintFor calls mint in batches until d has passed since start and
// returns the IDs minted.
func mintFor(next func() (uint64, error), w *worker, start time.Time, d time.Duration) (int64, error) {
	var ids int64
	for {
		if err := mint(next, batch, w); err != nil {
			return ids, err
		}
		ids += batch
		if time.Since(start) >= d {
			return ids, nil
		}
	}
}

// lineWords are the words of the shared line, one per goroutine modulo
// its count: 8 of 8 bytes, one 64-byte cache line.
const lineWords = 8

// line holds the shared line, aligned to 64 bytes by sharedLine.
var line [2 * lineWords]uint64

// sharedLine is the 64-byte-aligned line in line.
func sharedLine() []uint64 {
	off := (64 - int(uintptr(unsafe.Pointer(&line[0]))%64)) % 64 / 8
	return line[off : off+lineWords]
}

// extraCalls is the calls plant's arithmetic: of n calls, q of every
// 1,024 are made twice, the fraction of a call carried over (in
// 1,024ths) to the next batch. It returns the extra calls and the carry.
func extraCalls(carry, n, q int) (k, rest int) {
	carry += n * q
	return carry >> 10, carry & (1<<10 - 1)
}
