package shardedgen_test

import (
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/shardedgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrictBatchDrainsEveryShard: on a frozen clock a Strict batch takes
// the whole tick of every shard (Shards x 4,096 IDs in node-per-shard mode,
// the node's 4,096 when the sequence is split) before the bounded wait for
// the next tick refuses.
func TestStrictBatchDrainsEveryShard(t *testing.T) {
	for _, tc := range []struct {
		mode shardedgen.Mode
		want int
	}{
		{shardedgen.NodePerShard, 3 * 4096},
		{shardedgen.SplitSequence, 4096},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			g, err := shardedgen.New(shardedgen.Config{
				Config: snowlab.Config{Node: 4, Clock: clocksrc.FixedMillis(1737747358021)},
				Shards: 3, Mode: tc.mode,
			})
			require.NoError(t, err)
			dst := make([]snowlab.ID, 20_000)
			n, err := g.NextIDs(dst)
			require.ErrorIs(t, err, snowlab.ErrClockBackwards)
			assert.Equal(t, tc.want, n)
			seen := map[snowlab.ID]bool{}
			perShard := map[int]snowlab.ID{}
			for _, id := range dst[:n] {
				require.False(t, seen[id], "duplicate %d", id)
				seen[id] = true
				sh := g.ShardOf(id)
				require.GreaterOrEqual(t, sh, 0)
				if prev, ok := perShard[sh]; ok {
					require.Greater(t, id, prev, "shard %d", sh)
				}
				perShard[sh] = id
			}
			assert.Len(t, perShard, 3, "every shard gave IDs")
		})
	}
}
