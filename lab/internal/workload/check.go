package workload

import (
	"cmp"
	"container/heap"
	"slices"
	"time"

	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// Check verifies what s promised about the IDs one run issued: every ID
// unique; each goroutine's IDs increasing (per shard, for sharded
// generators) where s promises order; and, for strict generators, no more
// IDs in one tick for one node than the layout's sequence space. streams
// are the IDs each of the goroutines calling m, a minter of s, got in the
// order it got them: errs calls failed, the first with first.
func Check(s subject.Subject, m subject.Minter, streams [][]subject.ID, errs int, first error) result.Check {
	res := result.Check{Errors: errs}
	if first != nil {
		res.FirstError = first.Error()
	}
	sorted := true
	for _, ids := range streams {
		res.IDs += len(ids)
		res.OrderViolations += orderViolations(s, m, ids)
		sorted = sorted && slices.IsSortedFunc(ids, compareIDs)
	}
	var merged []subject.ID
	if sorted {
		merged = mergeSorted(streams, res.IDs)
	} else {
		merged = slices.Concat(streams...)
		slices.SortFunc(merged, compareIDs)
	}
	for i := 1; i < len(merged); i++ {
		if merged[i] == merged[i-1] {
			res.Duplicates++
		}
	}
	if s.Strict && s.PerTick > 0 {
		res.MaxPerTickNode = maxPerTickNode(merged, s.Decode, s.Tick)
		res.CeilingExceeded = res.MaxPerTickNode > s.PerTick
	}
	return res
}

// tickFill is the median (tick, shard) slot's fill: of the slots the IDs
// were minted in, the median count over the slot's sequence space
// (Subject.SlotCapacity). A tick the host did not let the generator run
// in has no slot; one it was descheduled in part of the way through is
// one partial slot among many full ones, which the median passes over; a
// generator too slow to fill its ticks lowers every slot. ok is false for
// a subject without a strict ceiling, or no IDs. A Sharder names the
// shard; otherwise the node is the shard.
func tickFill(s subject.Subject, m subject.Minter, streams [][]subject.ID) (fill float64, ok bool) {
	capacity := s.SlotCapacity()
	if capacity <= 0 {
		return 0, false
	}
	sh, _ := m.(subject.Sharder)
	type slot struct{ tick, shard int64 }
	counts := map[slot]int{}
	for _, ids := range streams {
		for _, id := range ids {
			t, n := s.Decode(id)
			if sh != nil {
				n = sh.ShardOf(id)
			}
			counts[slot{t.UnixNano() / int64(s.Tick), int64(n)}]++
		}
	}
	if len(counts) == 0 {
		return 0, false
	}
	per := make([]float64, 0, len(counts))
	for _, n := range counts {
		per = append(per, float64(n))
	}
	return stats.Median(per) / capacity, true
}

func orderViolations(s subject.Subject, m subject.Minter, ids []subject.ID) int {
	switch s.Order {
	case subject.OrderCaller:
		n := 0
		for i := 1; i < len(ids); i++ {
			if !ids[i-1].Less(ids[i]) {
				n++
			}
		}
		return n
	case subject.OrderShard:
		sh, ok := m.(subject.Sharder)
		if !ok {
			return 0
		}
		last := map[int]subject.ID{}
		n := 0
		for _, id := range ids {
			k := sh.ShardOf(id)
			if prev, seen := last[k]; seen && !prev.Less(id) {
				n++
			}
			last[k] = id
		}
		return n
	}
	return 0
}

// compareIDs orders IDs as ID.Less does.
func compareIDs(a, b subject.ID) int { return cmp.Or(cmp.Compare(a.Hi, b.Hi), cmp.Compare(a.Lo, b.Lo)) }

// mergeSorted merges increasing streams into one sorted slice in
// O(n log k), far cheaper than sorting millions of IDs again.
func mergeSorted(streams [][]subject.ID, total int) []subject.ID {
	out := make([]subject.ID, 0, total)
	h := &streamHeap{}
	for _, s := range streams {
		if len(s) > 0 {
			*h = append(*h, s)
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		s := (*h)[0]
		out = append(out, s[0])
		if len(s) == 1 {
			heap.Pop(h)
			continue
		}
		(*h)[0] = s[1:]
		heap.Fix(h, 0)
	}
	return out
}

type streamHeap [][]subject.ID

func (h streamHeap) Len() int           { return len(h) }
func (h streamHeap) Less(i, j int) bool { return h[i][0].Less(h[j][0]) }
func (h streamHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *streamHeap) Push(x any)        { *h = append(*h, x.([]subject.ID)) }
func (h *streamHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// maxPerTickNode counts IDs per (tick, node) over sorted IDs, where a
// Snowflake layout puts each (tick, node) in one contiguous run.
func maxPerTickNode(sorted []subject.ID, decode func(subject.ID) (time.Time, int), tick time.Duration) int {
	best, run := 0, 0
	var lastT time.Time
	lastN := -2
	for _, id := range sorted {
		t, n := decode(id)
		t = t.Truncate(tick)
		if n == lastN && t.Equal(lastT) {
			run++
		} else {
			run, lastT, lastN = 1, t, n
		}
		best = max(best, run)
	}
	return best
}
