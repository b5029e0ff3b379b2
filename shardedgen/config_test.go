package shardedgen_test

import (
	"math"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
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
		{"node-per-shard MaxInt", shardedgen.Config{Config: snowlab.Config{Node: 5}, Shards: math.MaxInt}, snowlab.ErrInvalidNode, "9223372036854775807"},
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
