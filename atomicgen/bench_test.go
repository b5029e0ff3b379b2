package atomicgen_test

import (
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/internal/benchgen"
)

func newGen(b *testing.B, p snowlab.Policy, casOnly bool) *atomicgen.Generator {
	return newGenFenced(b, p, casOnly, nil)
}

// newGenFenced builds a generator whose node id is reserved by fence, as a
// lease from nodeid would set it up (nil: no reservation).
func newGenFenced(b *testing.B, p snowlab.Policy, casOnly bool, fence *snowlab.Fence) *atomicgen.Generator {
	b.Helper()
	newFn := atomicgen.New
	if casOnly {
		newFn = atomicgen.NewCASOnly
	}
	g, err := newFn(snowlab.Config{Node: 1, Policy: p, Fence: fence})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkBare measures the operations a generator is built from, in the
// same run, so each generator figure below can be read as a ratio.
func BenchmarkBare(b *testing.B) {
	b.Run("clock", benchgen.BareClock)
	b.Run("cas", benchgen.BareCAS)
	b.Run("clock+cas", benchgen.BareClockCAS)
}

// BenchmarkLadder climbs from the bare clock to the whole NextID, one step
// a sub-benchmark, so that where the time goes can be read off as
// differences. Run it interleaved (make ladder) to compare steps; the
// paired steps (7 to 9) give the generator's cost as a ratio to the limit
// that holds on a busy host.
func BenchmarkLadder(b *testing.B) {
	b.Run("1-nanotime", benchgen.BareNanotime)
	b.Run("2-nanotime+cas", benchgen.BareNanotimeCAS)
	b.Run("3-clock", benchgen.BareClock)
	b.Run("4-clock+cas", benchgen.BareClockCAS)
	b.Run("5-monotonic", func(b *testing.B) { benchgen.Single(b, newGen(b, snowlab.Monotonic, false), 1) })
	b.Run("6-monotonic-leased", func(b *testing.B) {
		fence := snowlab.NewFence(0, time.Now().Add(time.Hour).UnixNano())
		benchgen.Single(b, newGenFenced(b, snowlab.Monotonic, false, fence), 1)
	})
	// The steps above time each loop on its own; on a busy host they
	// drift apart between steps. These pair each generator with the limit
	// slice by slice (benchgen.Paired): read their x-base metric.
	b.Run("7-monotonic:nanotime+cas", func(b *testing.B) {
		benchgen.Paired(b, benchgen.NanotimeCAS(), benchgen.NextIDs(b, newGen(b, snowlab.Monotonic, false)))
	})
	b.Run("8-monotonic-leased:nanotime+cas", func(b *testing.B) {
		fence := snowlab.NewFence(0, time.Now().Add(time.Hour).UnixNano())
		benchgen.Paired(b, benchgen.NanotimeCAS(), benchgen.NextIDs(b, newGenFenced(b, snowlab.Monotonic, false, fence)))
	})
	// Steps 5 to 8 call NextID through snowlab.Generator, as code holding
	// the interface does; this one calls it on the *Generator, which
	// inlines NextID and so saves the interface call and its wrapper.
	b.Run("9-monotonic-direct:nanotime+cas", func(b *testing.B) {
		g := newGen(b, snowlab.Monotonic, false)
		benchgen.Paired(b, benchgen.NanotimeCAS(), func(n int) {
			for range n {
				if _, err := g.NextID(); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

func BenchmarkNextID(b *testing.B) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		b.Run(p.String(), func(b *testing.B) { benchgen.Single(b, newGen(b, p, false), 1) })
		b.Run(p.String()+"-casonly", func(b *testing.B) { benchgen.Single(b, newGen(b, p, true), 1) })
		b.Run(p.String()+"-leased", func(b *testing.B) {
			// A reservation an hour ahead: the lease's cost on the hot
			// path is the atomic read of Fence.Until and a compare.
			fence := snowlab.NewFence(0, time.Now().Add(time.Hour).UnixNano())
			benchgen.Single(b, newGenFenced(b, p, false, fence), 1)
		})
	}
}

func BenchmarkNextIDParallel(b *testing.B) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		b.Run(p.String(), func(b *testing.B) { benchgen.Parallel(b, newGen(b, p, false), 1) })
		b.Run(p.String()+"-casonly", func(b *testing.B) { benchgen.Parallel(b, newGen(b, p, true), 1) })
	}
}

func BenchmarkNextIDs(b *testing.B) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		b.Run(p.String()+"-4096", func(b *testing.B) { benchgen.Batch(b, newGen(b, p, false), 4096, 1) })
	}
}
