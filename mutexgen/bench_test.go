package mutexgen_test

import (
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/benchgen"
	"github.com/snowlab/snowlab/mutexgen"
)

func newGen(b *testing.B, p snowlab.Policy) *mutexgen.Generator {
	b.Helper()
	g, err := mutexgen.New(snowlab.Config{Node: 1, Policy: p})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkBare measures a clock read and a CAS in the same run as the
// generator, so the figures can be read as ratios.
func BenchmarkBare(b *testing.B) {
	b.Run("clock", benchgen.BareClock)
	b.Run("clock+cas", benchgen.BareClockCAS)
}

func BenchmarkNextID(b *testing.B) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		b.Run(p.String(), func(b *testing.B) { benchgen.Single(b, newGen(b, p), 1) })
	}
}

func BenchmarkNextIDParallel(b *testing.B) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		b.Run(p.String(), func(b *testing.B) { benchgen.Parallel(b, newGen(b, p), 1) })
	}
}

func BenchmarkNextIDs(b *testing.B) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		b.Run(p.String()+"-4096", func(b *testing.B) { benchgen.Batch(b, newGen(b, p), 4096, 1) })
	}
}
