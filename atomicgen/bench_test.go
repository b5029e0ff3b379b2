package atomicgen_test

import (
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/internal/benchgen"
)

func newGen(b *testing.B, p snowlab.Policy, casOnly bool) *atomicgen.Generator {
	b.Helper()
	newFn := atomicgen.New
	if casOnly {
		newFn = atomicgen.NewCASOnly
	}
	g, err := newFn(snowlab.Config{Node: 1, Policy: p})
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

func BenchmarkNextID(b *testing.B) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		b.Run(p.String(), func(b *testing.B) { benchgen.Single(b, newGen(b, p, false), 1) })
		b.Run(p.String()+"-casonly", func(b *testing.B) { benchgen.Single(b, newGen(b, p, true), 1) })
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
