package subject

import (
	"runtime"
	"time"
	"unsafe"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/mutexgen"
	"github.com/snowlab/snowlab/shardedgen"
)

// Own returns snowlab's generators as subjects: mutexgen and atomicgen
// under both policies, and shardedgen in both modes under both policies,
// sharded over GOMAXPROCS as it is now. node is the first node id used.
func Own(node int) []Subject { return OwnWith(snowlab.Config{Node: node}) }

// FromLayout is what a snowlab layout decides of a subject minting with
// it: one node id's ceiling (the sequence space per tick) and Decode. The
// caller adds the rest.
func FromLayout(l snowlab.Layout) Subject {
	return Subject{Nodes: 1, PerTick: l.MaxSeq() + 1, Tick: l.Unit, Decode: layoutDecoder(l)}
}

// layoutDecoder is Subject.Decode for IDs of layout l.
func layoutDecoder(l snowlab.Layout) func(ID) (time.Time, int) {
	return func(id ID) (time.Time, int) {
		p := l.Decode(snowlab.ID(id.Lo))
		return p.Time, p.Node
	}
}

// OwnWith is Own with every generator built from base (its Node, Fence and
// Clock; Policy is set per subject): the way to measure generators minting
// under a nodeid lease, whose range must hold GOMAXPROCS ids for the
// node-per-shard subjects.
func OwnWith(base snowlab.Config) []Subject {
	shards := runtime.GOMAXPROCS(0)
	subject := func(name string, p snowlab.Policy) Subject {
		s := FromLayout(snowlab.DefaultLayout)
		s.Name, s.Library = name, "github.com/snowlab/snowlab"
		s.Strict, s.Order, s.Batch = p == snowlab.Strict, OrderCaller, true
		// Every snowlab generator's common path is one fetch-and-add
		// (internal/engine's Cell.Next; mutexgen's lock is a
		// compare-and-swap, more), on the default layout and on any
		// with 20 bits above the sequence for its overshoot.
		s.Limit = LimitFor(false, addsOn(base.Layout))
		return s
	}
	var out []Subject
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		cfg := base
		cfg.Policy = p
		s := subject("mutexgen/"+p.String(), p)
		s.New = func() (Minter, error) {
			g, err := mutexgen.New(cfg)
			return own{g}, err
		}
		out = append(out, s)
		s = subject("atomicgen/"+p.String(), p)
		s.New = func() (Minter, error) {
			g, err := atomicgen.New(cfg)
			return own{g}, err
		}
		out = append(out, s)
	}
	for _, m := range []shardedgen.Mode{shardedgen.NodePerShard, shardedgen.SplitSequence} {
		for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
			cfg := shardedgen.Config{Config: base, Shards: shards, Mode: m}
			cfg.Policy = p
			s := subject("shardedgen/"+m.String()+"/"+p.String(), p)
			s.Order = OrderShard
			s.Limit = LimitFor(true, addsOn(base.Layout))
			s.Shards = shards
			if m == shardedgen.NodePerShard {
				s.Nodes = shards
			}
			s.New = func() (Minter, error) {
				g, err := shardedgen.New(cfg)
				return sharded{own{g}, g}, err
			}
			out = append(out, s)
		}
	}
	return out
}

// addsOn reports whether the engine takes a count with fetch-and-add on
// layout l (the zero Layout is the default): it does when the state
// word's count field (the 64-TimeBits bits below the tick) holds at least
// 2^20 counts beyond the sequence's, room for every caller's overshoot
// (internal/engine's Rules.addOK, which the lab cannot import: the rule
// is written here again, and TestOwnLimits holds its cases).
func addsOn(l snowlab.Layout) bool {
	l = l.OrDefault()
	if l.TimeBits == 0 || l.TimeBits > 63 || l.SeqBits >= 64-l.TimeBits {
		return false // not a valid layout: the generator refuses it
	}
	return uint64(1)<<(64-l.TimeBits)-uint64(1)<<l.SeqBits >= 1<<20
}

// own adapts a snowlab.Generator to Minter.
type own struct{ g snowlab.Generator }

func (o own) Next() (ID, error) {
	id, err := o.g.NextID()
	return ID{Lo: uint64(id)}, err
}

// Fill asks the generator for the whole batch in one NextIDs call.
func (o own) Fill(dst []ID) (int, error) { return fillWide(dst, o.g.NextIDs) }

// fillWide runs a batch call that writes 64-bit IDs into the first half of
// dst's memory and then widens them in place, back to front, so that the
// batch costs no allocation and no extra calls.
func fillWide[T ~uint64 | ~int64](dst []ID, fill func([]T) (int, error)) (int, error) {
	if len(dst) == 0 {
		return 0, nil
	}
	raw := unsafe.Slice((*T)(unsafe.Pointer(&dst[0])), len(dst))
	n, err := fill(raw)
	n = min(max(n, 0), len(dst))
	// dst[i] covers raw[2i] and raw[2i+1]: going down from the end, those
	// have always been read already (2i >= i), and raw[i] is read before
	// dst[i] is written.
	for i := n - 1; i >= 0; i-- {
		v := raw[i]
		dst[i] = ID{Lo: uint64(v)}
	}
	return n, err
}

func (o own) Stats() snowlab.Stats { return o.g.Stats() }

type sharded struct {
	own
	g *shardedgen.Generator
}

func (s sharded) ShardOf(id ID) int { return s.g.ShardOf(snowlab.ID(id.Lo)) }
