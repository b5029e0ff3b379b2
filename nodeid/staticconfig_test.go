package nodeid_test

import (
	"fmt"
	"math"
	"testing"
	"testing/synctest"
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

// bubbleClock is a clock for a testing/synctest bubble: it reads ms (Unix
// ms) when made and moves on with the bubble's virtual time, so that a
// generator waiting for its floor (time.Sleep in the bubble) sees it pass
// at once, whatever the load of the machine.
func bubbleClock(ms int64) clocksrc.Clock {
	t0 := time.Now()
	return clocksrc.Func(func() int64 { return ms*int64(time.Millisecond) + int64(time.Since(t0)) })
}

// firstAfterRestart builds cfg with StaticConfig on a clock at restartT
// (in a bubble: its waits take no real time) and returns its first ID.
func firstAfterRestart(t *testing.T, cfg snowlab.Config) (first snowlab.ID) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		cfg.Clock = bubbleClock(restartT)
		cfg, err := nodeid.StaticConfig(cfg, 1)
		require.NoError(t, err)
		g, err := atomicgen.New(cfg)
		require.NoError(t, err)
		first, err = g.NextID()
		require.NoError(t, err)
	})
	return first
}

// TestStaticConfigRestart plays a process killed at full speed on a static
// node id and restarted in the same millisecond with the same policy and
// lead: built with StaticConfig, the successor's first ID is past
// everything its predecessor issued; built bare, as before StaticConfig,
// it repeats the predecessor's IDs.
func TestStaticConfigRestart(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  snowlab.Config
		lead int // ticks the predecessor may run ahead
	}{
		{"strict", snowlab.Config{Node: 7}, 0},
		{"monotonic 5ms", snowlab.Config{Node: 7, Policy: snowlab.Monotonic, MaxLead: 5 * time.Millisecond}, 5},
		{"monotonic 5.9ms is 5 ticks", snowlab.Config{Node: 7, Policy: snowlab.Monotonic, MaxLead: 5900 * time.Microsecond}, 5},
		{"monotonic StaticMaxLead", snowlab.Config{Node: 7, Policy: snowlab.Monotonic, MaxLead: nodeid.StaticMaxLead}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			last := fillLead(t, tc.cfg, tc.lead)
			first := firstAfterRestart(t, tc.cfg)
			assert.Greater(t, first, last, "the restarted generator repeats its predecessor's IDs")
			// Every start begins past StaticMaxLead ahead of the clock it
			// read, whatever its own lead: the tick after it.
			want := time.UnixMilli(restartT + nodeid.StaticMaxLead.Milliseconds() + 1).UTC()
			assert.Equal(t, want, snowlab.DefaultLayout.Decode(first).Time.UTC(), "the successor starts past the reach of any predecessor, no further")

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

// TestStaticConfigRestartAnyPolicy: a static node id restarted with a
// shorter lead, or with the other policy, than its predecessor had (snowid
// gen -policy monotonic -max-lead 100ms, then gen with -policy strict or
// -max-lead 1ms; snowidd -window 3s, then -window 10ms) never repeats the
// predecessor's IDs: every start begins past the longest lead any run on
// a static id may have. (When each start covered only its own lead, a
// strict successor of a 100 ms monotonic predecessor started 99 ticks
// under its last ID.)
func TestStaticConfigRestartAnyPolicy(t *testing.T) {
	type run struct {
		name string
		cfg  snowlab.Config
	}
	mono := func(lead time.Duration) run {
		return run{fmt.Sprintf("monotonic %v", lead), snowlab.Config{Node: 9, Policy: snowlab.Monotonic, MaxLead: lead}}
	}
	strict := run{"strict", snowlab.Config{Node: 9}}
	for _, pred := range []run{mono(nodeid.StaticMaxLead), mono(10 * time.Millisecond), strict} {
		last := fillLead(t, pred.cfg, int(pred.cfg.MaxLead/time.Millisecond))
		for _, succ := range []run{strict, mono(time.Millisecond), mono(10 * time.Millisecond), mono(nodeid.StaticMaxLead)} {
			t.Run(pred.name+" then "+succ.name, func(t *testing.T) {
				first := firstAfterRestart(t, succ.cfg)
				assert.Greater(t, first, last, "the restarted generator (%s) repeats the IDs of its predecessor (%s): its first %v, the predecessor's last %v",
					succ.name, pred.name, snowlab.DefaultLayout.Decode(first), snowlab.DefaultLayout.Decode(last))
			})
		}
	}
}

// TestStaticConfigMonotonicThrottles: a Monotonic successor started at its
// floor, StaticMaxLead ahead, mints one tick's sequence per tick of the
// clock instead of running further ahead.
func TestStaticConfigMonotonicThrottles(t *testing.T) {
	var now int64 = restartT * int64(time.Millisecond)
	clock := clocksrc.Func(func() int64 { return now })
	cfg, err := nodeid.StaticConfig(snowlab.Config{Node: 3, Policy: snowlab.Monotonic, MaxLead: nodeid.StaticMaxLead, Clock: clock}, 1)
	require.NoError(t, err)
	now += int64(time.Millisecond) // the end of the tick StaticConfig read: the floor is within the lead
	g, err := atomicgen.New(cfg)
	require.NoError(t, err)
	buf := make([]snowlab.ID, 4096)
	n, err := g.NextIDs(buf)
	require.NoError(t, err)
	require.Equal(t, 4096, n)
	assert.Equal(t, time.UnixMilli(restartT+101).UTC(), snowlab.DefaultLayout.Decode(buf[4095]).Time.UTC())
	now += int64(time.Millisecond)
	n, err = g.NextIDs(buf)
	require.NoError(t, err)
	assert.Equal(t, time.UnixMilli(restartT+102).UTC(), snowlab.DefaultLayout.Decode(buf[n-1]).Time.UTC())
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
		{"monotonic lead above StaticMaxLead", snowlab.Config{Node: 9, Policy: snowlab.Monotonic, MaxLead: 2 * time.Second}, 1, snowlab.ErrInvalidConfig, "MaxLead 2s on static node id 9 is above 100ms (StaticMaxLead)"},
		{"MaxFloorWait shorter than the start", snowlab.Config{Node: 9, MaxFloorWait: 50 * time.Millisecond}, 1, snowlab.ErrInvalidConfig, "MaxFloorWait 50ms on static node id 9: a start waits up to 101ms"},
		{"MaxFloorWait negative", snowlab.Config{Node: 9, MaxFloorWait: -1}, 1, snowlab.ErrInvalidConfig, "MaxFloorWait -1ns"},
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
	oneSecond := snowlab.Layout{TimeBits: 31, NodeBits: 10, SeqBits: 22, Unit: time.Second, Epoch: epoch}
	oneHour := snowlab.Layout{TimeBits: 20, NodeBits: 13, SeqBits: 30, Unit: time.Hour, Epoch: epoch}
	at := func(d time.Duration) clocksrc.Clock { return clocksrc.FixedMillis(epoch.Add(d).UnixMilli()) }
	for _, tc := range []struct {
		name      string
		cfg       snowlab.Config
		floor     int64 // Unix ns
		floorWait time.Duration
	}{
		// Every start is StaticMaxLead (100 ms) past the tick read, whatever
		// its own policy and lead.
		{"strict: StaticMaxLead past the tick", snowlab.Config{Node: 2, Clock: at(1500 * time.Millisecond)}, epoch.Add(1601 * time.Millisecond).UnixNano(), snowlab.DefaultMaxFloorWait},
		{"monotonic 10 ms ticks", snowlab.Config{Node: 2, Layout: tenMs, Policy: snowlab.Monotonic, MaxLead: 25 * time.Millisecond, Clock: at(1505 * time.Millisecond)}, epoch.Add(1610 * time.Millisecond).UnixNano(), snowlab.DefaultMaxFloorWait},
		// A 1 s tick: 100 ms is no whole tick, the floor is the end of the tick read.
		{"a tick longer than StaticMaxLead", snowlab.Config{Node: 2, Layout: oneSecond, Clock: at(1500 * time.Millisecond)}, epoch.Add(2 * time.Second).UnixNano(), snowlab.DefaultMaxFloorWait},
		{"a MaxFloorWait given stays", snowlab.Config{Node: 2, Clock: at(0), MaxFloorWait: time.Second}, epoch.Add(101 * time.Millisecond).UnixNano(), time.Second},
		{"a tick past MaxFloorWait raises it", snowlab.Config{Node: 2, Layout: oneHour, Clock: at(0)}, epoch.Add(time.Hour).UnixNano(), time.Hour + nodeid.StaticMaxLead},
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
	cfg, err := nodeid.StaticConfig(snowlab.Config{Node: 8, Policy: snowlab.Monotonic, MaxLead: nodeid.StaticMaxLead, Clock: clocksrc.ScriptedMillis(restartT)}, 4)
	require.NoError(t, err)
	g, err := shardedgen.New(shardedgen.Config{Config: cfg, Shards: 4})
	require.NoError(t, err)
	id, err := g.NextID()
	require.NoError(t, err)
	p := snowlab.DefaultLayout.Decode(id)
	assert.GreaterOrEqual(t, p.Node, 8)
	assert.LessOrEqual(t, p.Node, 11)
	assert.Equal(t, time.UnixMilli(restartT+101).UTC(), p.Time.UTC(), "a start begins StaticMaxLead past the tick read")

	_, err = shardedgen.New(shardedgen.Config{Config: cfg, Shards: 5})
	require.ErrorIs(t, err, snowlab.ErrInvalidNode)
}
