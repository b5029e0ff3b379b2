// Package benchgen holds the benchmark bodies every generator package runs,
// so that the figures of mutexgen, atomicgen and shardedgen come from the
// same loops and can be read as ratios of each other and of the bare
// operations (a clock read, a compare-and-swap) measured beside them.
//
// Each body reports ids/s and, against the strict per-node ceiling of the
// default layout (4,096 IDs per millisecond), ceiling%.
package benchgen

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/internal/benchgen/limit"
	"github.com/snowlab/snowlab/internal/mono"
)

// CeilingPerSec is the default layout's strict per-node ceiling.
const CeilingPerSec = 4096 * 1000

func report(b *testing.B, ids int, nodes int) {
	sec := b.Elapsed().Seconds()
	if sec == 0 || ids == 0 {
		return
	}
	rate := float64(ids) / sec
	b.ReportMetric(rate, "ids/s")
	b.ReportMetric(100*rate/float64(CeilingPerSec*max(nodes, 1)), "ceiling%")
}

// Single mints IDs one at a time on one goroutine.
func Single(b *testing.B, g snowlab.Generator, nodes int) {
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := g.NextID(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	report(b, n, nodes)
}

// Parallel mints IDs one at a time from GOMAXPROCS goroutines.
func Parallel(b *testing.B, g snowlab.Generator, nodes int) {
	b.ReportAllocs()
	var total atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		n := 0
		for pb.Next() {
			if _, err := g.NextID(); err != nil {
				b.Error(err)
				return
			}
			n++
		}
		total.Add(int64(n))
	})
	report(b, int(total.Load()), nodes)
}

// Batch mints IDs size at a time with NextIDs on one goroutine.
func Batch(b *testing.B, g snowlab.Generator, size, nodes int) {
	b.ReportAllocs()
	dst := make([]snowlab.ID, size)
	n := 0
	for b.Loop() {
		k, err := g.NextIDs(dst)
		if err != nil {
			b.Fatal(err)
		}
		n += k
	}
	report(b, n, nodes)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(n, 1)), "ns/id")
}

// BareClock reads the default clock: the floor under every strict ID.
func BareClock(b *testing.B) {
	c := clocksrc.Default()
	var sink int64
	for b.Loop() {
		sink += c.UnixNano()
	}
	runtime.KeepAlive(sink)
}

// BareCAS is one uncontended load and compare-and-swap: limit.Word's
// Advance with no clock.
func BareCAS(b *testing.B) {
	var w limit.Word
	var sink uint64
	for b.Loop() {
		v, _ := w.Advance(0)
		sink += v
	}
	runtime.KeepAlive(sink)
}

// BareClockCAS is one default clock read plus one load and
// compare-and-swap (limit.Word): the least a lock-free generator that
// honours the clock can do per ID. The lab measures the same loop as its
// limit/clock+cas subject.
func BareClockCAS(b *testing.B) {
	c := clocksrc.Default()
	var w limit.Word
	var sink uint64
	for b.Loop() {
		v, _ := w.Advance(uint64(c.UnixNano()))
		sink += v
	}
	runtime.KeepAlive(sink)
}

// BarePerPClockCAS runs BareClockCAS from GOMAXPROCS goroutines, each on
// its P's word (limit.PerP, picked by procPin as shardedgen picks its
// shard): the floor for shardedgen, and the lab's limit/per-p subject.
func BarePerPClockCAS(b *testing.B) {
	c := clocksrc.Default()
	words := limit.NewPerP(runtime.GOMAXPROCS(0))
	epoch := c.UnixNano() // PerP's values must fit in 54 bits
	b.RunParallel(func(pb *testing.PB) {
		var sink uint64
		for pb.Next() {
			v, _, _ := words.Advance(uint64(c.UnixNano() - epoch))
			sink += v
		}
		runtime.KeepAlive(sink)
	})
}

// BareNanotime reads the runtime's vDSO monotonic clock directly: the
// cheapest clock read there is, below every generator.
func BareNanotime(b *testing.B) {
	var sink int64
	for b.Loop() {
		sink += mono.Now()
	}
	runtime.KeepAlive(sink)
}

// BareNanotimeCAS is BareNanotime plus one load and compare-and-swap: the
// physical limit "one clock read and one atomic word" that a generator's
// NextID is measured against.
func BareNanotimeCAS(b *testing.B) {
	var w atomic.Uint64
	for b.Loop() {
		v := w.Load()
		w.CompareAndSwap(v, v+uint64(mono.Now()&1)+1)
	}
}
