package conformance

import (
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testLiteralVectors checks IDs worked out by hand: the default layout's
// shifts, node 37 at Unix ms 1737747358021 as 141264821508263936, and
// 141264821510144037 as node 496 with sequence 37 (the trailing 37 is not
// the node).
func testLiteralVectors(t *testing.T, s Suite) {
	l := snowlab.DefaultLayout
	assert.Equal(t, 1023, l.MaxNode())
	assert.Equal(t, 4095, l.MaxSeq())
	assert.Equal(t, uint(22), l.NodeBits+l.SeqBits, "timestamp shift")
	assert.Equal(t, uint(12), l.SeqBits, "node shift")

	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		const ms = 1737747358021
		g := s.gen(t, snowlab.Config{Node: 37, Policy: p, Clock: clocksrc.FixedMillis(ms)})
		id := next(t, g)
		parts := l.Decode(id)
		assert.Equal(t, time.UnixMilli(ms).UTC(), parts.Time)
		if s.multi() {
			// A shard of its own: the node or the sequence is the shard's.
			assert.GreaterOrEqual(t, s.ShardOf(g, id), 0)
			return
		}
		assert.Equal(t, snowlab.ID(141264821508263936), id)
		assert.Equal(t, snowlab.Parts{Time: time.UnixMilli(ms).UTC(), Node: 37, Seq: 0}, parts)
		assert.Positive(t, int64(id), "positive in a signed BIGINT")
	})
	p := l.Decode(141264821510144037)
	assert.Equal(t, 496, p.Node, "the constant ending in 37 is node 496")
	assert.Equal(t, 37, p.Seq)
}

// testOrder: IDs increase within a tick and across ticks.
func testOrder(t *testing.T, s Suite) {
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		g := s.gen(t, snowlab.Config{Node: 7, Policy: p,
			Clock: clocksrc.ScriptedMillis(epochMs, epochMs, epochMs+1)})
		ids := []snowlab.ID{next(t, g), next(t, g), next(t, g)}
		requireUnique(t, ids)
		s.checkOrder(t, g, ids)
		if !s.multi() {
			assert.Less(t, ids[0], ids[1])
			assert.Less(t, ids[1], ids[2])
			assert.Equal(t, 1, snowlab.DefaultLayout.Decode(ids[1]).Seq)
			assert.Equal(t, 0, snowlab.DefaultLayout.Decode(ids[2]).Seq, "a new tick restarts the sequence")
		}
	})
}

// testTwoNodes: identical instant, identical sequence, different node.
func testTwoNodes(t *testing.T, s Suite) {
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		clock := clocksrc.FixedMillis(epochMs + 99)
		a := s.gen(t, snowlab.Config{Node: 1, Policy: p, Clock: clock})
		b := s.gen(t, snowlab.Config{Node: 1 + s.nodesUsed(), Policy: p, Clock: clock})
		var ids []snowlab.ID
		for range 1000 {
			ids = append(ids, next(t, a), next(t, b))
		}
		requireUnique(t, ids)
	})
}

// testWindowEnd: the first tick past the 41-bit window, a clock before the
// epoch, and a Monotonic generator borrowing past the last tick are all
// ErrOverflow.
func testWindowEnd(t *testing.T, s Suite) {
	l := snowlab.DefaultLayout
	horizonMs := l.Horizon().UnixMilli()
	forPolicies(t, func(t *testing.T, p snowlab.Policy) {
		g := s.gen(t, snowlab.Config{Policy: p, Clock: clocksrc.FixedMillis(horizonMs)})
		_, err := g.NextID()
		require.ErrorIs(t, err, snowlab.ErrOverflow)

		g = s.gen(t, snowlab.Config{Policy: p, Clock: clocksrc.FixedMillis(epochMs - 1)})
		_, err = g.NextID()
		require.ErrorIs(t, err, snowlab.ErrOverflow)

		// The last tick still works, up to its sequence.
		g = s.gen(t, snowlab.Config{Policy: p, Clock: clocksrc.FixedMillis(horizonMs - 1)})
		id := next(t, g)
		assert.Equal(t, l.Horizon().Add(-time.Millisecond), l.Decode(id).Time)
		if s.multi() {
			return
		}
		dst := make([]snowlab.ID, l.MaxSeq()+1)
		n, err := g.NextIDs(dst)
		require.ErrorIs(t, err, snowlab.ErrOverflow, "no tick after the last one, for either policy")
		assert.Equal(t, l.MaxSeq(), n, "the rest of the last tick is issued first")
	})
}

// testBadConfig: bad nodes and layouts are refused with their errors.
func testBadConfig(t *testing.T, s Suite) {
	for _, node := range []int{-1, 1024, 1 << 20} {
		_, err := s.New(snowlab.Config{Node: node})
		assert.ErrorIs(t, err, snowlab.ErrInvalidNode, "node %d", node)
	}
	_, err := s.New(snowlab.Config{Node: 1025 - s.nodesUsed()})
	assert.ErrorIs(t, err, snowlab.ErrInvalidNode, "the generator's last node must fit too")
	_, err = s.New(snowlab.Config{Node: 1024 - s.nodesUsed()})
	assert.NoError(t, err, "the highest first node that fits")

	epoch := snowlab.DefaultLayout.Epoch
	for name, l := range map[string]snowlab.Layout{
		"sum 62":      {TimeBits: 40, NodeBits: 10, SeqBits: 12, Unit: time.Millisecond, Epoch: epoch},
		"sum 64":      {TimeBits: 42, NodeBits: 10, SeqBits: 12, Unit: time.Millisecond, Epoch: epoch},
		"zero node":   {TimeBits: 51, NodeBits: 0, SeqBits: 12, Unit: time.Millisecond, Epoch: epoch},
		"zero unit":   {TimeBits: 41, NodeBits: 10, SeqBits: 12, Epoch: epoch},
		"no epoch":    {TimeBits: 41, NodeBits: 10, SeqBits: 12, Unit: time.Millisecond},
		"huge window": {TimeBits: 51, NodeBits: 6, SeqBits: 6, Unit: time.Second, Epoch: epoch},
	} {
		_, err := s.New(snowlab.Config{Layout: l})
		assert.ErrorIs(t, err, snowlab.ErrInvalidLayout, name)
	}
	_, err = s.New(snowlab.Config{Policy: 7})
	assert.ErrorIs(t, err, snowlab.ErrInvalidConfig, "unknown policy")
	_, err = s.New(snowlab.Config{Policy: snowlab.Monotonic, MaxLead: -time.Millisecond})
	assert.ErrorIs(t, err, snowlab.ErrInvalidConfig, "negative MaxLead")
	if err != nil {
		assert.Contains(t, err.Error(), "-1ms", "the message names the bad value")
	}
}

// testMessagesWallTimeOnly: an Epoch taken from time.Now() carries a
// monotonic reading; no message may print it ("m=+3656.59").
func testMessagesWallTimeOnly(t *testing.T, s Suite) {
	epoch := time.Now().Add(-time.Hour)
	l := snowlab.Layout{TimeBits: 41, NodeBits: 10, SeqBits: 12, Unit: time.Millisecond, Epoch: epoch}
	// A clock before the epoch: every call is outside the window.
	g := s.gen(t, snowlab.Config{Layout: l, Clock: clocksrc.FixedMillis(epoch.Add(-time.Hour).UnixMilli())})
	_, err := g.NextID()
	require.ErrorIs(t, err, snowlab.ErrOverflow)
	assert.NotContains(t, err.Error(), "m=")
}
