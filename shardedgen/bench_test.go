package shardedgen_test

import (
	"runtime"
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/benchgen"
	"github.com/snowlab/snowlab/shardedgen"
)

func newGen(b *testing.B, p snowlab.Policy, m shardedgen.Mode) *shardedgen.Generator {
	b.Helper()
	g, err := shardedgen.New(shardedgen.Config{Config: snowlab.Config{Node: 1, Policy: p}, Mode: m})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// nodes is how many per-node ceilings the generator may reach.
func nodes(g *shardedgen.Generator) int {
	if g.Mode() == shardedgen.NodePerShard {
		return g.Shards()
	}
	return 1
}

// BenchmarkBare measures the per-P lower bound (a clock read and a CAS on a word
// of each P's own) in the same run as the generator.
func BenchmarkBare(b *testing.B) {
	b.Run("clock", benchgen.BareClock)
	b.Run("clock+cas", benchgen.BareClockCAS)
	b.Run("per-p-clock+cas", benchgen.BarePerPClockCAS)
}

func modes() []shardedgen.Mode {
	return []shardedgen.Mode{shardedgen.NodePerShard, shardedgen.SplitSequence}
}

func BenchmarkNextID(b *testing.B) {
	for _, m := range modes() {
		for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
			b.Run(m.String()+"/"+p.String(), func(b *testing.B) {
				g := newGen(b, p, m)
				benchgen.Single(b, g, nodes(g))
			})
		}
	}
}

func BenchmarkNextIDParallel(b *testing.B) {
	for _, m := range modes() {
		for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
			b.Run(m.String()+"/"+p.String(), func(b *testing.B) {
				g := newGen(b, p, m)
				b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
				benchgen.Parallel(b, g, nodes(g))
			})
		}
	}
}

func BenchmarkNextIDs(b *testing.B) {
	for _, m := range modes() {
		for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
			b.Run(m.String()+"/"+p.String()+"-4096", func(b *testing.B) {
				g := newGen(b, p, m)
				benchgen.Batch(b, g, 4096, nodes(g))
			})
		}
	}
}
