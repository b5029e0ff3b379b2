package conformance

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testBatches: NextIDs hands out whole batches, in order, and an empty
// batch is a no-op.
func testBatches(t *testing.T, s Suite) {
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		// A tick a read: a Strict batch moves to a fresh tick each round
		// instead of sleeping on a fake clock that only moves when read.
		g := s.gen(t, snowlab.Config{Node: 3, Policy: p, Clock: stepClock(epochMs*int64(time.Millisecond), int64(time.Millisecond))})
		n, err := g.NextIDs(nil)
		require.NoError(t, err)
		assert.Zero(t, n)

		var all []snowlab.ID
		for _, size := range []int{1, 7, 4096, 10_000, 3} {
			dst := make([]snowlab.ID, size)
			n, err := g.NextIDs(dst)
			require.NoError(t, err)
			require.Equal(t, size, n)
			s.checkOrder(t, g, dst)
			all = append(all, dst...)
			all = append(all, next(t, g))
		}
		requireUnique(t, all)
	})

	// Monotonic on a frozen clock: a batch far larger than a tick is
	// issued at once by borrowing.
	g := s.gen(t, snowlab.Config{Policy: snowlab.Monotonic, Clock: clocksrc.FixedMillis(epochMs + 1)})
	dst := make([]snowlab.ID, 100_000)
	n, err := g.NextIDs(dst)
	require.NoError(t, err)
	require.Equal(t, len(dst), n)
	requireUnique(t, dst)
	s.checkOrder(t, g, dst)
}

// testConcurrent: many goroutines, many IDs, NextID and NextIDs mixed, on a
// fast fake clock and on the real one: no duplicate, and each goroutine's
// IDs increase (within a shard, for a sharded generator).
func testConcurrent(t *testing.T, s Suite) {
	const goroutines, perG = 8, 6000
	clocks := map[string]func() clocksrc.Clock{
		// 50 µs a read: twenty reads a tick, so ticks turn over under
		// contention all the time. A fake clock only moves when read, so
		// it must never let a tick fill up: a caller waiting for the next
		// tick sleeps in real time and would see the clock stand still.
		"fake": func() clocksrc.Clock { return stepClock(epochMs*int64(time.Millisecond)+1e12, 50_000) },
		// The real clock fills ticks: 8 goroutines outrun 4,096 IDs a ms.
		"real": clocksrc.Default,
	}
	for name, clock := range clocks {
		t.Run(name, func(t *testing.T) {
			forPolicies(t, func(t *testing.T, p snowlab.Policy) {
				c := clock()
				g := s.gen(t, snowlab.Config{Node: 9, Policy: p, Clock: c})
				out := make([][]snowlab.ID, goroutines)
				errs := make([]error, goroutines)
				var start, wg sync.WaitGroup
				start.Add(1)
				for i := range goroutines {
					wg.Add(1)
					go func() {
						defer wg.Done()
						ids := make([]snowlab.ID, 0, perG)
						batch := make([]snowlab.ID, 1+i*13)
						start.Wait()
						for len(ids) < perG && errs[i] == nil {
							if i%2 == 0 {
								var id snowlab.ID
								if id, errs[i] = g.NextID(); errs[i] == nil {
									ids = append(ids, id)
								}
								continue
							}
							var n int
							n, errs[i] = g.NextIDs(batch[:min(len(batch), perG-len(ids))])
							ids = append(ids, batch[:n]...)
						}
						out[i] = ids
					}()
				}
				start.Done()
				wg.Wait()
				var all []snowlab.ID
				for i, ids := range out {
					require.NoError(t, errs[i], "goroutine %d", i)
					require.Len(t, ids, perG)
					s.checkOrder(t, g, ids)
					all = append(all, ids...)
				}
				requireUnique(t, all)
				if p == snowlab.Strict {
					// Strict never stamps a time the clock had not reached.
					latest := time.Unix(0, c.UnixNano())
					for _, id := range all {
						if snowlab.DefaultLayout.Decode(id).Time.After(latest) {
							require.FailNowf(t, "ahead of the clock", "id %d is ahead of the clock", id)
						}
					}
				}
			})
		})
	}
}

// testAdjacentNodes: two generators built on adjacent node ranges, as two
// processes given consecutive node ids by a deployment are, each drawn on
// by goroutines on every P, mint only on the node ids their Config names
// and never the same ID. A default that took more node ids than the
// Config names (one per P) made the two overlap.
func testAdjacentNodes(t *testing.T, s Suite) {
	const goroutines, perG = 8, 3000
	l := snowlab.DefaultLayout
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		start := int64(epochMs)*int64(time.Millisecond) + 1e12
		first := 4
		gens := []snowlab.Generator{
			s.gen(t, snowlab.Config{Node: first, Policy: p, Clock: stepClock(start, 50_000)}),
			s.gen(t, snowlab.Config{Node: first + s.nodesUsed(), Policy: p, Clock: stepClock(start, 50_000)}),
		}
		out := make([][]snowlab.ID, 2*goroutines)
		errs := make([]error, 2*goroutines)
		var wg sync.WaitGroup
		for i := range out {
			wg.Go(func() {
				g := gens[i%2]
				ids := make([]snowlab.ID, 0, perG)
				for len(ids) < perG && errs[i] == nil {
					var id snowlab.ID
					if id, errs[i] = g.NextID(); errs[i] == nil {
						ids = append(ids, id)
					}
					if len(ids)%64 == 0 {
						runtime.Gosched() // move between Ps, and so between shards
					}
				}
				out[i] = ids
			})
		}
		wg.Wait()
		var all []snowlab.ID
		for i, ids := range out {
			require.NoError(t, errs[i], "goroutine %d", i)
			lo := first + (i%2)*s.nodesUsed()
			for _, id := range ids {
				if n := l.Decode(id).Node; n < lo || n >= lo+s.nodesUsed() {
					t.Fatalf("generator %d, built for node ids %d..%d, minted id %d on node %d", i%2, lo, lo+s.nodesUsed()-1, id, n)
				}
			}
			all = append(all, ids...)
		}
		requireUnique(t, all)
	})
}

// testZeroAllocs: the hot path allocates nothing.
func testZeroAllocs(t *testing.T, s Suite) {
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		g := s.gen(t, snowlab.Config{Policy: p})
		dst := make([]snowlab.ID, 64)
		allocs := testing.AllocsPerRun(2000, func() {
			if _, err := g.NextID(); err != nil {
				t.Fatal(err)
			}
			if _, err := g.NextIDs(dst); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "allocations per NextID+NextIDs")
	})
}
