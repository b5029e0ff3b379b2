package shardedgen

import (
	"fmt"
	"runtime"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/engine"
)

// Mode says how shards divide the ID space.
type Mode int

const (
	// NodePerShard gives shard i node Config.Node+i and the whole sequence
	// field. A process holds Shards node ids.
	NodePerShard Mode = iota
	// SplitSequence gives every shard Config.Node and a contiguous slice of
	// the sequence field: with S shards and C sequence values, each shard
	// gets C/S values and the first C%S shards one more, so the whole field
	// is used and no value is shared.
	SplitSequence
)

func (m Mode) String() string {
	switch m {
	case NodePerShard:
		return "node-per-shard"
	case SplitSequence:
		return "split-sequence"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Config configures a sharded generator.
type Config struct {
	snowlab.Config
	// Shards is the number of shards, fixed for the generator's life. A
	// P whose index is past the count uses shard index modulo Shards.
	//
	// 0 depends on the mode and never, in NodePerShard, on the host:
	// NodePerShard mints on node ids Node..Node+Shards-1, so 0 takes the
	// node ids the Config names and no more — the rest of the fence's
	// range from Node when Config.Fence covers a range of node ids (a
	// nodeid.Lease's Config does), otherwise one shard, on Node alone. (A
	// count that followed GOMAXPROCS would mint on node ids nobody
	// assigned: Node 8 on a 64-core host would take 8..71, colliding with
	// the process given node 9.) SplitSequence holds the one node id
	// Node whatever the count, so 0 there is GOMAXPROCS when New runs.
	Shards int
	// Mode is NodePerShard (the zero value) or SplitSequence.
	Mode Mode
}

// Generator is a sharded generator. It is safe for concurrent use.
type Generator struct {
	rules *engine.Rules
	// shards are engine.Cells, which fill whole engine.CacheLines:
	// neighbouring state words are then never on one cache line (nor on
	// the pair the adjacent-line prefetcher fetches together), whatever
	// the slice's alignment.
	shards []engine.Cell
	mode   Mode
}

var _ snowlab.Generator = (*Generator)(nil)

// New returns a sharded generator for cfg. In NodePerShard mode every node
// Node..Node+Shards-1 must fit the layout (ErrInvalidNode otherwise); in
// SplitSequence mode each shard needs at least one sequence value.
func New(cfg Config) (*Generator, error) {
	n := cfg.Shards
	switch {
	case n < 0:
		return nil, fmt.Errorf("%w: shardedgen: %d shards is negative", snowlab.ErrInvalidConfig, n)
	case n == 0:
		n = defaultShards(cfg)
	}
	// Every bound is checked before the shards are allocated, so an absurd
	// count is an error, not an allocation of gigabytes.
	nodes := 1
	switch cfg.Mode {
	case NodePerShard:
		nodes = n
	case SplitSequence:
		if l := cfg.Layout.OrDefault(); l.Validate() == nil && uint64(n) > uint64(l.MaxSeq())+1 {
			return nil, fmt.Errorf("%w: shardedgen: %d shards cannot split %d sequence values",
				snowlab.ErrInvalidConfig, n, l.MaxSeq()+1)
		}
	default:
		return nil, fmt.Errorf("%w: shardedgen: unknown mode %d (want NodePerShard or SplitSequence)", snowlab.ErrInvalidConfig, int(cfg.Mode))
	}
	r, err := engine.Prepare(cfg.Config, nodes)
	if err != nil {
		return nil, err
	}
	g := &Generator{rules: r, shards: make([]engine.Cell, n), mode: cfg.Mode}
	c := r.SeqCap()
	if cfg.Mode == NodePerShard {
		for i := range g.shards {
			g.shards[i].Init(r, r.Space(cfg.Node+i, 0, c))
		}
	} else {
		q, rem := c/uint64(n), c%uint64(n)
		lo := uint64(0)
		for i := range g.shards {
			w := q
			if uint64(i) < rem {
				w++
			}
			g.shards[i].Init(r, r.Space(cfg.Node, lo, w))
			lo += w
		}
	}
	return g, nil
}

// defaultShards is what Shards 0 means for cfg (see Config.Shards).
func defaultShards(cfg Config) int {
	if cfg.Mode == SplitSequence {
		return runtime.GOMAXPROCS(0)
	}
	if cfg.Fence != nil {
		if first, count, ok := cfg.Fence.Nodes(); ok && cfg.Node >= first && cfg.Node < first+count {
			return first + count - cfg.Node
		}
	}
	return 1
}

// Shards is the number of shards.
func (g *Generator) Shards() int { return len(g.shards) }

// Mode is how the shards divide the ID space.
func (g *Generator) Mode() Mode { return g.mode }

// local is the index of the calling goroutine's shard.
func (g *Generator) local() int {
	p := procPin()
	procUnpin()
	if p >= len(g.shards) {
		p %= len(g.shards)
	}
	return p
}

// NextID returns a new ID from the shard of the calling goroutine's P.
func (g *Generator) NextID() (snowlab.ID, error) {
	return g.shards[g.local()].Next(g.rules)
}

// NextIDs fills dst with new IDs. Under Monotonic the calling goroutine's
// shard reserves the whole batch with one compare-and-swap. Under Strict a
// shard can give at most the rest of its current tick, so a batch takes
// what every shard has left in its tick (one compare-and-swap each) before
// it waits, on its own shard, for the next tick: a batch then reaches
// Shards times a single node's ceiling. IDs increase within each shard,
// not across the batch.
func (g *Generator) NextIDs(dst []snowlab.ID) (int, error) {
	own := g.local()
	if g.rules.Monotonic() || len(g.shards) == 1 {
		return g.shards[own].Take(g.rules, dst)
	}
	done := 0
	for done < len(dst) {
		for k := range g.shards {
			n, err := g.shards[(own+k)%len(g.shards)].TakeAvailable(g.rules, dst[done:])
			if done += n; err != nil || done == len(dst) {
				return done, err
			}
		}
		// Every shard's tick is spent (or the clock went back): wait on
		// the own shard, with all the bounds a single ID has.
		n, err := g.shards[own].Take(g.rules, dst[done:done+1])
		if done += n; err != nil {
			return done, err
		}
	}
	return done, nil
}

// Stats sums the shards' counts.
func (g *Generator) Stats() snowlab.Stats {
	var st snowlab.Stats
	for i := range g.shards {
		st = st.Add(g.shards[i].Stats())
	}
	return st
}

// ShardStats reports shard i's counts.
func (g *Generator) ShardStats(i int) snowlab.Stats { return g.shards[i].Stats() }

// ShardOf returns the index of the shard that issued id, or -1 when no
// shard of g could have issued it. Order is promised within a shard, so
// this is the key to check it by.
func (g *Generator) ShardOf(id snowlab.ID) int {
	p := g.rules.Layout().Decode(id)
	for i := range g.shards {
		if g.shards[i].Space().Contains(p.Node, uint64(p.Seq)) {
			return i
		}
	}
	return -1
}
