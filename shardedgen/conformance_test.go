package shardedgen_test

import (
	"fmt"
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/conformance"
	"github.com/snowlab/snowlab/shardedgen"
)

// TestConformance runs the suite for each mode with one shard (where every
// exact count applies) and with three (an uneven split of the sequence,
// and more shards than this CI machine has cores).
func TestConformance(t *testing.T) {
	for _, mode := range []shardedgen.Mode{shardedgen.NodePerShard, shardedgen.SplitSequence} {
		for _, shards := range []int{1, 3} {
			t.Run(fmt.Sprintf("%v/%d", mode, shards), func(t *testing.T) {
				nodes := 1
				if mode == shardedgen.NodePerShard {
					nodes = shards
				}
				conformance.Run(t, conformance.Suite{
					New: func(c snowlab.Config) (snowlab.Generator, error) {
						return shardedgen.New(shardedgen.Config{Config: c, Shards: shards, Mode: mode})
					},
					Shards:    shards,
					NodesUsed: nodes,
					ShardOf: func(g snowlab.Generator, id snowlab.ID) int {
						return g.(*shardedgen.Generator).ShardOf(id)
					},
				})
			})
		}
	}
}
