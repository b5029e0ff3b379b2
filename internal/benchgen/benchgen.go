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
	"slices"
	"sync/atomic"
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
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

// BareCAS is one uncontended load and compare-and-swap: the limit word's
// advance (words.go) with no clock.
func BareCAS(b *testing.B) {
	var w word
	var sink uint64
	for b.Loop() {
		sink += w.advance(0)
	}
	runtime.KeepAlive(sink)
}

// BareClockCAS is one default clock read plus one load and
// compare-and-swap (the limit word): the least a lock-free generator that
// honours the clock can do per ID. The lab measures the same loop as its
// limit/clock+cas subject.
func BareClockCAS(b *testing.B) {
	c := clocksrc.Default()
	var w word
	var sink uint64
	for b.Loop() {
		sink += w.advance(uint64(c.UnixNano()))
	}
	runtime.KeepAlive(sink)
}

// BarePerPClockCAS runs BareClockCAS from GOMAXPROCS goroutines, each on
// its P's word (perP, picked by procPin as shardedgen picks its
// shard): the floor for shardedgen, and the lab's limit/per-p subject.
func BarePerPClockCAS(b *testing.B) {
	c := clocksrc.Default()
	words := newPerP(runtime.GOMAXPROCS(0))
	epoch := c.UnixNano() // perP's values must fit in 54 bits
	b.RunParallel(func(pb *testing.PB) {
		var sink uint64
		for pb.Next() {
			sink += words.advance(uint64(c.UnixNano() - epoch))
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
		nanotimeCAS(&w)
	}
}

// Paired measures subject against base on one goroutine, alternating
// short slices of calls (each slice runs its func with n = PairSlice
// calls; the order flips every pair), and reports the median over pairs
// of subject's time over base's as the metric "x-base", with each side's
// median ns per call. A slice lasts tens of microseconds, so whatever else
// the host does (another process, a frequency change) lands on both sides
// of a pair alike: on a busy host the ratio holds where two separately
// timed benchmarks drift apart.
func Paired(b *testing.B, base, subject func(n int)) {
	var ratios, baseNs, subjNs []float64
	timed := func(f func(int)) float64 {
		t0 := mono.Now()
		f(PairSlice)
		return float64(mono.Now()-t0) / PairSlice
	}
	i := 0
	for b.Loop() {
		var bt, st float64
		if i%2 == 0 {
			bt = timed(base)
			st = timed(subject)
		} else {
			st = timed(subject)
			bt = timed(base)
		}
		i++
		ratios, baseNs, subjNs = append(ratios, st/bt), append(baseNs, bt), append(subjNs, st)
	}
	b.ReportMetric(median(ratios), "x-base")
	b.ReportMetric(median(baseNs), "base-ns/op")
	b.ReportMetric(median(subjNs), "subject-ns/op")
}

// PairSlice is how many calls one slice of Paired makes.
const PairSlice = 1000

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// NanotimeCAS is BareNanotimeCAS as a Paired side: n rounds of its body.
func NanotimeCAS() func(n int) {
	var w atomic.Uint64
	return func(n int) {
		for range n {
			nanotimeCAS(&w)
		}
	}
}

// nanotimeCAS is one vDSO clock read and one load and compare-and-swap of
// w: the physical limit's body, shared by BareNanotimeCAS and NanotimeCAS.
func nanotimeCAS(w *atomic.Uint64) {
	v := w.Load()
	w.CompareAndSwap(v, v+uint64(mono.Now()&1)+1)
}

// NextIDs is a Paired side minting n IDs one at a time from g, through the
// snowlab.Generator interface as Single does.
func NextIDs(b *testing.B, g snowlab.Generator) func(n int) {
	return func(n int) {
		for range n {
			if _, err := g.NextID(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
