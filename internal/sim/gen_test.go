package sim

import (
	"context"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/mutexgen"
	"github.com/snowlab/snowlab/shardedgen"
)

// gen is one generator of a holder, on one node id, with what the checker
// needs to judge its refusals: the last tick it issued from (at first the
// tick before its start, spent).
type gen struct {
	g     snowlab.Generator
	kind  string
	node  int
	token int64
	fence *snowlab.Fence
	last  int64 // tick of the last ID
	spent bool  // last is spent: the tick before the start
	// high is the highest tick of any ID (at first the start's, spent:
	// highSpent): a split shardedgen's latest ID may come from the
	// shard that is behind (refusalRight).
	high      int64
	highSpent bool
	dead      bool  // superseded, or its lease released: it must refuse
	lead      int64 // MaxLead in ticks (Monotonic; 0: unbounded)
}

// waits are the bounds a generator is built with, drawn from the seed:
// refuse at once (negative), the default, or a few ticks.
var (
	maxWaits      = [...]time.Duration{-1, 0, 2 * time.Millisecond}
	maxFloorWaits = [...]time.Duration{-1, 0, 20 * time.Millisecond}
	maxLeads      = [...]time.Duration{0, time.Millisecond, 5 * time.Millisecond}
)

// newGen builds a generator of kind on cfg: mutexgen, atomicgen, or a
// shardedgen (one shard per node id, or a sequence split in two on one).
// The test runs with GOMAXPROCS 1, so a shardedgen always mints from its
// first shard, and IDs do not depend on which P a goroutine ran on.
func newGen(kind int, cfg snowlab.Config) (snowlab.Generator, string, error) {
	switch kind {
	case 0:
		g, err := mutexgen.New(cfg)
		return g, "mutexgen", err
	case 1:
		g, err := atomicgen.New(cfg)
		return g, "atomicgen", err
	case 2:
		g, err := shardedgen.New(shardedgen.Config{Config: cfg, Shards: 1})
		return g, "shardedgen", err
	default:
		g, err := shardedgen.New(shardedgen.Config{Config: cfg, Shards: 2, Mode: shardedgen.SplitSequence})
		return g, "shardedgen-split", err
	}
}

// tickOf is the layout tick of Unix nanoseconds ns.
func tickOf(ns int64) int64 { return floorDiv(ns-epoch.UnixNano(), int64(time.Millisecond)) }

// tickEnd is the end of tick t in Unix nanoseconds.
func tickEnd(t int64) int64 { return epoch.UnixNano() + (t+1)*int64(time.Millisecond) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// build makes a generator on node n of the lease, with MaxWait,
// MaxFloorWait and (Monotonic) MaxLead drawn from the seed. The engine's
// waits run on the bubble's virtual time; the generator's clock puts the
// holder's goroutine back on its phase after each (genClock).
func (h *holder) build(n int) {
	l := h.lease
	cfg := l.Config(snowlab.Config{Policy: h.policy, Clock: h.genClock,
		MaxWait: maxWaits[h.rng.IntN(3)], MaxFloorWait: maxFloorWaits[h.rng.IntN(3)]})
	if h.policy == snowlab.Monotonic {
		cfg.MaxLead = maxLeads[h.rng.IntN(3)]
	}
	cfg.Node = n
	kind := h.rng.IntN(4)
	c0, lastEnd := h.peek(), l.Fence().LastEnd()
	g, name, err := newGen(kind, cfg)
	if err != nil {
		// A constructor that refuses takes no grant: the earlier
		// generators on n mint on.
		h.w.chk.buildRefused(h, name, c0, lastEnd, err)
		return
	}
	for _, o := range h.gens {
		if o.node == n {
			o.dead = true // the new one's grant stopped it
		}
	}
	start := tickOf(lastEnd - 1)
	if lastEnd <= epoch.UnixNano() {
		start = -1
	}
	h.gens = append(h.gens, &gen{g: g, kind: name, node: n, token: l.Token(), fence: l.Fence(), last: start, spent: true,
		high: start, highSpent: true, lead: int64(cfg.MaxLead / time.Millisecond)})
}

// mint takes a few IDs from one live generator, one by one or as a
// batch, and has each checked; now and then it also calls a dead one,
// which must refuse.
func (h *holder) mint() {
	if len(h.gens) == 0 {
		return
	}
	g := h.gens[h.rng.IntN(len(h.gens))]
	lost := false
	select {
	case <-h.lease.Lost():
		lost = true
	default:
	}
	s0 := g.g.Stats()
	c0, u0 := h.peek(), g.fence.Until()
	var buf [4]snowlab.ID
	want := 1 + h.rng.IntN(len(buf))
	var got int
	var err error
	if h.rng.IntN(2) == 0 {
		got, err = g.g.NextIDs(buf[:want])
	} else {
		for got < want && err == nil {
			if buf[got], err = g.g.NextID(); err == nil {
				got++
			}
		}
	}
	s1 := g.g.Stats()
	h.w.mu.Lock()
	h.w.stats.waits += int(s1.TickWaits + s1.RewindWaits - s0.TickWaits - s0.RewindWaits)
	h.w.mu.Unlock()
	h.w.chk.minted(h, g, buf[:got], err, c0, h.peek(), u0, lost)
}

// rebuild builds a new generator on one of the lease's node ids: the
// one it replaces must refuse from then on.
func (h *holder) rebuild() {
	first, count := h.lease.Nodes()
	h.w.mu.Lock()
	h.w.stats.rebuilds++
	h.w.mu.Unlock()
	h.build(first + h.rng.IntN(count))
}

// release lets the lease go gracefully; its generators must refuse after.
func (h *holder) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	err := h.lease.Release(ctx)
	cancel()
	h.w.mu.Lock()
	h.w.stats.releases++
	h.w.trace("h%d release err=%v", h.id, err)
	h.w.mu.Unlock()
	for _, g := range h.gens {
		g.dead = true
	}
	if len(h.gens) > 0 {
		h.mint() // a dead generator: it must refuse
	}
	h.lease, h.gens = nil, nil
}
