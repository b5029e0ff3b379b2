package shardedgen_test

import (
	"math"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/shardedgen"
)

// Absurd shard counts are refused with a named error before anything is
// allocated: NodePerShard Node 5, Shards MaxInt panicked (the range check
// wrapped), SplitSequence 1<<50 panicked, and 4,000,000 shards allocated
// 488 MiB before refusing.
func TestNewRefusesAbsurdShards(t *testing.T) {
	huge := 1 << (strconv.IntSize - 14)
	for _, tc := range []struct {
		name string
		cfg  shardedgen.Config
		want error
		msg  string
	}{
		{"node-per-shard MaxInt", shardedgen.Config{Config: snowlab.Config{Node: 5}, Shards: math.MaxInt}, snowlab.ErrInvalidNode, strconv.Itoa(math.MaxInt)},
		{"node-per-shard 4,000,000", shardedgen.Config{Shards: 4_000_000}, snowlab.ErrInvalidNode, "4000000"},
		{"node-per-shard one too many", shardedgen.Config{Config: snowlab.Config{Node: 1000}, Shards: 25}, snowlab.ErrInvalidNode, "25"},
		{"split 1<<50 (1<<18 on 32 bits)", shardedgen.Config{Shards: huge, Mode: shardedgen.SplitSequence}, snowlab.ErrInvalidConfig, strconv.Itoa(huge)},
		{"split 4,000,000", shardedgen.Config{Shards: 4_000_000, Mode: shardedgen.SplitSequence}, snowlab.ErrInvalidConfig, "4000000"},
		{"split 4097", shardedgen.Config{Shards: 4097, Mode: shardedgen.SplitSequence}, snowlab.ErrInvalidConfig, "4097"},
		{"negative", shardedgen.Config{Shards: -1}, snowlab.ErrInvalidConfig, "-1"},
		{"unknown mode", shardedgen.Config{Shards: 1, Mode: 9}, snowlab.ErrInvalidConfig, "9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := shardedgen.New(tc.cfg)
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.msg, "the message names the bad value")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "refused before allocating the shards")
		})
	}
	g, err := shardedgen.New(shardedgen.Config{Shards: 4096, Mode: shardedgen.SplitSequence})
	require.NoError(t, err, "one sequence value per shard is the most that splits")
	assert.Equal(t, 4096, g.Shards())
}

// Shards 0 in NodePerShard takes the node ids the Config names, never one
// per P: two processes given adjacent node ids (0 and 1) with otherwise
// zero Configs minted 169,638 duplicates among 630k IDs on a 2-core host
// when the default followed GOMAXPROCS. GOMAXPROCS is raised here so that
// a count following it would show.
func TestDefaultShardsNameTheirNodes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	fence := func(first, count int) *snowlab.Fence { return snowlab.NewFenceFor(first, count, 0, math.MaxInt64) }
	for _, tc := range []struct {
		name       string
		cfg        shardedgen.Config
		wantShards int
		wantNodes  []int
	}{
		{"no lease: node alone", shardedgen.Config{Config: snowlab.Config{Node: 8}}, 1, []int{8}},
		{"no lease, node 0", shardedgen.Config{}, 1, []int{0}},
		{"lease of 3 from its first node", shardedgen.Config{Config: snowlab.Config{Node: 40, Fence: fence(40, 3)}}, 3, []int{40, 41, 42}},
		{"lease of 4 from its third node", shardedgen.Config{Config: snowlab.Config{Node: 42, Fence: fence(40, 4)}}, 2, []int{42, 43}},
		{"fence without a range", shardedgen.Config{Config: snowlab.Config{Node: 7, Fence: snowlab.NewFence(0, math.MaxInt64)}}, 1, []int{7}},
		{"given count", shardedgen.Config{Config: snowlab.Config{Node: 8}, Shards: 3}, 3, []int{8, 9, 10}},
		{"split sequence follows GOMAXPROCS on one node", shardedgen.Config{Config: snowlab.Config{Node: 8}, Mode: shardedgen.SplitSequence}, 8, []int{8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A stopped clock: every shard has exactly one tick's IDs, so
			// NextIDs under Strict, which takes what each shard
			// has left of its tick before it waits, fills dst from every
			// shard. On the machine's clock a slow run (-race on a loaded
			// host) let one shard span several ticks and fill it alone.
			tc.cfg.Clock = clocksrc.FixedMillis(1_735_689_600_000) // 2025-01-01
			g, err := shardedgen.New(tc.cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.wantShards, g.Shards())
			// One tick of every shard: 4,096 IDs per node id, split among
			// the shards under SplitSequence.
			perTick := 4096 * g.Shards()
			if tc.cfg.Mode == shardedgen.SplitSequence {
				perTick = 4096
			}
			dst := make([]snowlab.ID, perTick)
			n, err := g.NextIDs(dst)
			require.NoError(t, err)
			nodes := map[int]bool{}
			for _, id := range dst[:n] {
				nodes[snowlab.DefaultLayout.Decode(id).Node] = true
			}
			for _, want := range tc.wantNodes {
				assert.True(t, nodes[want], "node %d unused", want)
				delete(nodes, want)
			}
			assert.Empty(t, nodes, "node ids the config does not name")
		})
	}
}
