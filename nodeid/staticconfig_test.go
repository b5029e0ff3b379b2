package nodeid_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/shardedgen"
)

// restartT is the Unix ms at which the restart tests' predecessor mints
// and its successor starts.
const restartT = 1_737_747_358_021

// fillLead mints, on a clock frozen at restartT, every ID of the ticks
// restartT..restartT+lead (lead in ms): a generator at full speed with
// that MaxLead has then spent all it may before it must wait for the
// clock. It returns the last ID.
func fillLead(t *testing.T, cfg snowlab.Config, lead int) snowlab.ID {
	t.Helper()
	cfg.Clock = clocksrc.FixedMillis(restartT)
	g, err := atomicgen.New(cfg)
	require.NoError(t, err)
	buf := make([]snowlab.ID, 4096)
	var last snowlab.ID
	for range lead + 1 {
		n, err := g.NextIDs(buf)
		require.NoError(t, err)
		require.Equal(t, len(buf), n)
		last = buf[n-1]
	}
	p := snowlab.DefaultLayout.Decode(last)
	require.Equal(t, time.UnixMilli(restartT+int64(lead)).UTC(), p.Time.UTC(), "the predecessor did not reach its lead")
	require.Equal(t, 4095, p.Seq)
	return last
}

// TestStaticConfigRestart plays a process killed at full speed on a static
// node id and restarted in the same millisecond: built with StaticConfig,
// the successor's first ID is past everything its predecessor issued;
// built bare, as before StaticConfig, it repeats the predecessor's IDs.
func TestStaticConfigRestart(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  snowlab.Config
		lead int // ticks the predecessor may run ahead
	}{
		{"strict", snowlab.Config{Node: 7}, 0},
		{"monotonic 5ms", snowlab.Config{Node: 7, Policy: snowlab.Monotonic, MaxLead: 5 * time.Millisecond}, 5},
		{"monotonic 5.9ms is 5 ticks", snowlab.Config{Node: 7, Policy: snowlab.Monotonic, MaxLead: 5900 * time.Microsecond}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			last := fillLead(t, tc.cfg, tc.lead)

			// The successor reads restartT when it starts, then the
			// clock moves on by 1 ms a read.
			cfg := tc.cfg
			cfg.Clock = clocksrc.ScriptedMillis(restartT)
			cfg, err := nodeid.StaticConfig(cfg, 1)
			require.NoError(t, err)
			g, err := atomicgen.New(cfg)
			require.NoError(t, err)
			first, err := g.NextID()
			require.NoError(t, err)
			assert.Greater(t, first, last, "the restarted generator repeats its predecessor's IDs")
			if tc.cfg.Policy == snowlab.Monotonic {
				// Strict stamps the clock's reading, which moved on.
				want := time.UnixMilli(restartT + int64(tc.lead) + 1).UTC()
				assert.Equal(t, want, snowlab.DefaultLayout.Decode(first).Time.UTC(), "the successor starts past the predecessor's reach, no further")
			}

			// The control: the same successor without the fence.
			bare := tc.cfg
			bare.Clock = clocksrc.ScriptedMillis(restartT)
			b, err := atomicgen.New(bare)
			require.NoError(t, err)
			again, err := b.NextID()
			require.NoError(t, err)
			assert.LessOrEqual(t, again, last, "without StaticConfig the successor should repeat its predecessor's time")
		})
	}
}

// TestStaticConfigMonotonicThrottles: a Monotonic successor started at its
// floor, MaxLead ahead, mints one tick's sequence per tick of the clock
// instead of running further ahead.
func TestStaticConfigMonotonicThrottles(t *testing.T) {
	var now int64 = restartT * int64(time.Millisecond)
	clock := clocksrc.Func(func() int64 { return now })
	cfg, err := nodeid.StaticConfig(snowlab.Config{Node: 3, Policy: snowlab.Monotonic, MaxLead: 2 * time.Millisecond, Clock: clock}, 1)
	require.NoError(t, err)
	now += int64(time.Millisecond) // the end of the tick StaticConfig read
	g, err := atomicgen.New(cfg)
	require.NoError(t, err)
	buf := make([]snowlab.ID, 4096)
	n, err := g.NextIDs(buf)
	require.NoError(t, err)
	require.Equal(t, 4096, n)
	assert.Equal(t, time.UnixMilli(restartT+3).UTC(), snowlab.DefaultLayout.Decode(buf[4095]).Time.UTC())
	now += int64(time.Millisecond)
	n, err = g.NextIDs(buf)
	require.NoError(t, err)
	assert.Equal(t, time.UnixMilli(restartT+4).UTC(), snowlab.DefaultLayout.Decode(buf[n-1]).Time.UTC())
}

func TestStaticConfigRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   snowlab.Config
		count int
		is    error
		msg   string
	}{
		{"monotonic unbounded", snowlab.Config{Node: 4, Policy: snowlab.Monotonic}, 1, snowlab.ErrInvalidConfig, "MaxLead 0 (unbounded) on static node id 4"},
		{"negative lead", snowlab.Config{Policy: snowlab.Monotonic, MaxLead: -time.Millisecond}, 1, snowlab.ErrInvalidConfig, "MaxLead -1ms"},
		{"node past the layout", snowlab.Config{Node: 1024}, 1, snowlab.ErrInvalidNode, "node 1024"},
		{"range past the layout", snowlab.Config{Node: 1020}, 5, snowlab.ErrInvalidNode, "node 1024"},
		{"no node ids", snowlab.Config{Node: 1}, 0, snowlab.ErrInvalidNode, "0 node ids"},
		{"bad layout", snowlab.Config{Layout: snowlab.Layout{TimeBits: 1, NodeBits: 1, SeqBits: 1, Unit: time.Millisecond}}, 1, snowlab.ErrInvalidLayout, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nodeid.StaticConfig(tc.cfg, tc.count)
			require.ErrorIs(t, err, tc.is)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestStaticConfigFence(t *testing.T) {
	epoch := snowlab.DefaultLayout.Epoch
	tenMs := snowlab.Layout{TimeBits: 39, NodeBits: 10, SeqBits: 14, Unit: 10 * time.Millisecond, Epoch: epoch}
	at := func(d time.Duration) clocksrc.Clock { return clocksrc.FixedMillis(epoch.Add(d).UnixMilli()) }
	for _, tc := range []struct {
		name      string
		cfg       snowlab.Config
		floor     int64 // Unix ns
		floorWait time.Duration
	}{
		{"strict: the end of the tick", snowlab.Config{Node: 2, Clock: at(1500 * time.Millisecond)}, epoch.Add(1501 * time.Millisecond).UnixNano(), snowlab.DefaultMaxFloorWait},
		// 25 ms is two whole 10 ms ticks, as the generators count a lead.
		{"monotonic 10 ms ticks", snowlab.Config{Node: 2, Layout: tenMs, Policy: snowlab.Monotonic, MaxLead: 25 * time.Millisecond, Clock: at(1505 * time.Millisecond)}, epoch.Add(1530 * time.Millisecond).UnixNano(), snowlab.DefaultMaxFloorWait},
		{"a lead past MaxFloorWait raises it", snowlab.Config{Node: 2, Policy: snowlab.Monotonic, MaxLead: time.Minute, Clock: at(0)}, epoch.Add(time.Minute + time.Millisecond).UnixNano(), time.Minute + time.Millisecond},
		{"a MaxFloorWait given stays", snowlab.Config{Node: 2, Clock: at(0), MaxFloorWait: -1}, epoch.Add(time.Millisecond).UnixNano(), -1},
		{"before the epoch: no floor", snowlab.Config{Node: 2, Clock: at(-time.Hour)}, 0, snowlab.DefaultMaxFloorWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := nodeid.StaticConfig(tc.cfg, 3)
			require.NoError(t, err)
			require.NotNil(t, cfg.Fence)
			assert.Equal(t, tc.floor, cfg.Fence.Floor())
			assert.Equal(t, int64(math.MaxInt64), cfg.Fence.Until())
			first, count, ok := cfg.Fence.Nodes()
			assert.Equal(t, []any{2, 3, true}, []any{first, count, ok})
			assert.Equal(t, tc.floorWait, cfg.MaxFloorWait)
		})
	}
	cfg, err := nodeid.StaticConfig(snowlab.Config{}, 1)
	require.NoError(t, err)
	assert.NotNil(t, cfg.Clock, "a nil clock is the default one, shared by the floor and the generator")
}

// TestStaticConfigShards: a node-per-shard generator takes the count node
// ids StaticConfig fenced, and no more.
func TestStaticConfigShards(t *testing.T) {
	cfg, err := nodeid.StaticConfig(snowlab.Config{Node: 8, Policy: snowlab.Monotonic, MaxLead: time.Millisecond, Clock: clocksrc.ScriptedMillis(restartT)}, 4)
	require.NoError(t, err)
	g, err := shardedgen.New(shardedgen.Config{Config: cfg, Shards: 4})
	require.NoError(t, err)
	id, err := g.NextID()
	require.NoError(t, err)
	p := snowlab.DefaultLayout.Decode(id)
	assert.GreaterOrEqual(t, p.Node, 8)
	assert.LessOrEqual(t, p.Node, 11)
	assert.Equal(t, time.UnixMilli(restartT+2).UTC(), p.Time.UTC(), "a 1-tick lead starts past the tick after the one read")

	_, err = shardedgen.New(shardedgen.Config{Config: cfg, Shards: 5})
	require.ErrorIs(t, err, snowlab.ErrInvalidNode)
}
