package lab

import (
	"container/heap"
	"fmt"
	"slices"
	"time"
)

// checker verifies what a subject promised about the IDs one run issued:
// every ID unique; each goroutine's IDs increasing (per shard, for sharded
// generators) where the subject promises order; and, for strict
// generators, no more IDs in one tick for one node than the layout's
// sequence space.
type checker struct {
	s Subject
	m Minter
}

// check examines streams, one per goroutine in the order it received them.
// errs counts calls that failed and first is the first failure.
func (c checker) check(streams [][]ID, errs int, first error) Check {
	res := Check{Errors: errs}
	if first != nil {
		res.FirstError = first.Error()
	}
	sorted := true
	for _, ids := range streams {
		res.IDs += len(ids)
		res.OrderViolations += c.orderViolations(ids)
		if !isIncreasing(ids) {
			sorted = false
		}
	}
	var merged []ID
	if sorted {
		merged = mergeSorted(streams, res.IDs)
	} else {
		merged = make([]ID, 0, res.IDs)
		for _, ids := range streams {
			merged = append(merged, ids...)
		}
		slices.SortFunc(merged, func(a, b ID) int {
			switch {
			case a.Less(b):
				return -1
			case b.Less(a):
				return 1
			}
			return 0
		})
	}
	for i := 1; i < len(merged); i++ {
		if merged[i] == merged[i-1] {
			res.Duplicates++
		}
	}
	if c.s.Strict && c.s.PerTick > 0 {
		res.MaxPerTickNode = maxPerTickNode(merged, c.s.Decode, c.s.Tick)
		res.CeilingExceeded = res.MaxPerTickNode > c.s.PerTick
	}
	return res
}

func (c checker) orderViolations(ids []ID) int {
	switch c.s.Order {
	case OrderCaller:
		n := 0
		for i := 1; i < len(ids); i++ {
			if !ids[i-1].Less(ids[i]) {
				n++
			}
		}
		return n
	case OrderShard:
		sh, ok := c.m.(Sharder)
		if !ok {
			return 0
		}
		last := map[int]ID{}
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

func isIncreasing(ids []ID) bool {
	for i := 1; i < len(ids); i++ {
		if !ids[i-1].Less(ids[i]) {
			return false
		}
	}
	return true
}

// mergeSorted merges increasing streams into one sorted slice in
// O(n log k), far cheaper than sorting millions of IDs again.
func mergeSorted(streams [][]ID, total int) []ID {
	out := make([]ID, 0, total)
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

type streamHeap [][]ID

func (h streamHeap) Len() int           { return len(h) }
func (h streamHeap) Less(i, j int) bool { return h[i][0].Less(h[j][0]) }
func (h streamHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *streamHeap) Push(x any)        { *h = append(*h, x.([]ID)) }
func (h *streamHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// maxPerTickNode counts IDs per (tick, node) over sorted IDs, where a
// Snowflake layout puts each (tick, node) in one contiguous run.
func maxPerTickNode(sorted []ID, decode func(ID) (time.Time, int), tick time.Duration) int {
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

// describe names what a failed check found, for Run.Failures.
func (c Check) describe(subject, where string) string {
	return fmt.Sprintf("%s (%s): %d IDs, %d duplicates, %d order violations, max %d per tick per node (ceiling exceeded: %v), %d errors %s",
		subject, where, c.IDs, c.Duplicates, c.OrderViolations, c.MaxPerTickNode, c.CeilingExceeded, c.Errors, c.FirstError)
}
