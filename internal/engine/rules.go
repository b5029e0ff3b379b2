package engine

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/internal/anchor"
)

// Rules is a validated Config compiled to the shifts and bounds the hot
// path needs. It is immutable and shared by all of a generator's cells.
type Rules struct {
	// The fields Next reads on every call come first, together (through
	// grant), so that a call touches one or two cache lines of the struct,
	// not fields strewn over all four; the rest serve the slow paths.
	anchored *anchor.Clock // clock, when it is clocksrc.Default's: read inline
	epochNs  int64
	unitNs   int64
	// backNs is how far before the start of a state word's tick the clock
	// may read and the tick still be used: 0 for Strict, MaxLead for a
	// bounded Monotonic, the whole window for an unbounded one.
	backNs  int64
	nShift  uint   // where the tick sits in a state word
	nMask   uint64 // the count bits of a state word
	tsShift uint   // where the tick sits in an ID
	// addOK says fetch-add may be used on a state word: an add that lands
	// on a spent tick overshoots the count by one, and every caller
	// overshoots at most once per tick, so the count bits need room for
	// more concurrent callers than a process can hold. 2^20 is that room.
	addOK     bool
	grant     *snowlab.Grant // the generator's right to mint under fence; set by Prepare
	maxTick   int64
	layout    snowlab.Layout
	clock     clocksrc.Clock
	seqCap    uint64 // sequence values per tick for one node
	monotonic bool
	maxWaitNs int64 // largest rewind waited out; negative refuses all
	leadBound bool
	leadTicks int64
	fence     *snowlab.Fence // nil: no reservation
	startNs   int64          // no ID starts before it: the fence's LastEnd when granted
	startWait time.Duration  // how long New waits for the clock to pass startNs
}

// Compile validates cfg and compiles it. It does not check cfg.Node: a
// generator checks the node ids it will use with CheckNodes.
func Compile(cfg snowlab.Config) (*Rules, error) {
	l := cfg.Layout.OrDefault()
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if cfg.Policy != snowlab.Strict && cfg.Policy != snowlab.Monotonic {
		return nil, fmt.Errorf("%w: unknown policy %d (want Strict or Monotonic)", snowlab.ErrInvalidConfig, int(cfg.Policy))
	}
	if cfg.MaxLead < 0 {
		return nil, fmt.Errorf("%w: MaxLead %v is negative", snowlab.ErrInvalidConfig, cfg.MaxLead)
	}
	l.Epoch = l.Epoch.Round(0) // no monotonic reading in messages
	clock := cfg.Clock
	if clock == nil {
		clock = clocksrc.Default()
	}
	maxWait := cfg.MaxWait
	switch {
	case maxWait == 0:
		maxWait = snowlab.DefaultMaxWait
	case maxWait < 0:
		maxWait = -1
	}
	r := &Rules{
		layout:    l,
		clock:     clock,
		epochNs:   l.Epoch.UnixNano(),
		unitNs:    int64(l.Unit),
		maxTick:   l.MaxTick(),
		tsShift:   l.NodeBits + l.SeqBits,
		nShift:    64 - l.TimeBits,
		seqCap:    1 << l.SeqBits,
		monotonic: cfg.Policy == snowlab.Monotonic,
		maxWaitNs: int64(maxWait),
		leadBound: cfg.Policy == snowlab.Monotonic && cfg.MaxLead > 0,
		leadTicks: int64(cfg.MaxLead / l.Unit),
		fence:     cfg.Fence,
		startWait: cfg.MaxFloorWait,
	}
	if r.startWait == 0 {
		r.startWait = snowlab.DefaultMaxFloorWait
	}
	r.anchored, _ = clock.(*anchor.Clock)
	switch {
	case !r.monotonic:
	case r.leadBound:
		r.backNs = r.leadTicks * r.unitNs
	default:
		r.backNs = (r.maxTick + 1) * r.unitNs
	}
	r.nMask = 1<<r.nShift - 1
	r.addOK = r.nMask+1-r.seqCap >= 1<<20
	return r, nil
}

// Layout is the resolved layout (never the zero Layout).
func (r *Rules) Layout() snowlab.Layout { return r.layout }

// Monotonic reports whether the policy is Monotonic.
func (r *Rules) Monotonic() bool { return r.monotonic }

// SeqCap is how many sequence values one node has per tick.
func (r *Rules) SeqCap() uint64 { return r.seqCap }

// CheckNodes reports ErrInvalidNode unless count node ids from first on all
// fit the layout. It cannot overflow, whatever the count.
func CheckNodes(l snowlab.Layout, first, count int) error {
	switch {
	case first < 0 || first > l.MaxNode():
		return fmt.Errorf("%w: node %d, want 0..%d", snowlab.ErrInvalidNode, first, l.MaxNode())
	case count < 1 || count > l.MaxNode()+1-first:
		return fmt.Errorf("%w: %d node ids from node %d on, want within 0..%d (at most %d from %d)",
			snowlab.ErrInvalidNode, count, first, l.MaxNode(), l.MaxNode()+1-first, first)
	}
	return nil
}

// Space is the part of the ID space one state word issues from: a node and
// a slice of the sequence field.
type Space struct {
	base uint64 // node<<SeqBits | first sequence value
	cap  uint64 // sequence values per tick
	lo   uint64 // first sequence value
	node int
}

// Space returns the space of node with the sequence values lo..lo+width-1.
func (r *Rules) Space(node int, lo, width uint64) Space {
	return Space{base: uint64(node)<<r.layout.SeqBits | lo, cap: width, lo: lo, node: node}
}

// read reads the clock in Unix nanoseconds. Next writes the same read out
// inline (see there); everything else calls this.
func (r *Rules) read() int64 {
	if r.anchored != nil {
		return r.anchored.UnixNano() // a direct call: no interface dispatch
	}
	return r.clock.UnixNano()
}

// tickOf is the tick of Unix time ns; before the epoch it is -1, which
// plan treats as outside the window.
func (r *Rules) tickOf(ns int64) int64 {
	d := ns - r.epochNs
	switch {
	case d < 0:
		return -1
	case r.unitNs == int64(time.Millisecond):
		return d / int64(time.Millisecond) // a constant divisor compiles to a multiply
	}
	return d / r.unitNs
}

// The shifts are masked to 63, which they never exceed, so that the
// compiler emits a bare shift instead of handling counts of 64 and more.

func (r *Rules) compose(tick int64, n uint64, sp Space) snowlab.ID {
	return snowlab.ID(uint64(tick)<<(r.tsShift&63) | (sp.base + n))
}

func (r *Rules) pack(tick int64, n uint64) uint64 { return uint64(tick)<<(r.nShift&63) | n }

func (r *Rules) unpack(s uint64) (tick int64, n uint64) {
	return int64(s >> (r.nShift & 63)), s & r.nMask
}

// tickStart is the Unix nanosecond at which tick begins.
func (r *Rules) tickStart(tick int64) int64 { return r.epochNs + tick*r.unitNs }

// fenced reports whether tick reaches past the reservation: an ID may carry
// tick only when the whole tick ends at or before the grant's Until.
func (r *Rules) fenced(tick int64) bool { return r.endsPastUntil(r.tickStart(tick + 1)) }

// endsPastUntil reports whether a tick ending at Unix time end reaches
// past the reservation. Without a fence it is one compare with nil.
func (r *Rules) endsPastUntil(end int64) bool {
	return r.grant != nil && end > r.grant.Until()
}

// use records, before a tick ending at end is installed in a state word,
// that the fence's holder has used time up to end (Grant.Use).
func (r *Rules) use(tick int64) {
	if r.grant != nil {
		r.grant.Use(r.tickStart(tick + 1))
	}
}

// lastReserved is the last tick the reservation covers, or maxTick
// without one. It is below 0 once the reservation is revoked.
func (r *Rules) lastReserved() int64 {
	if r.grant == nil {
		return r.maxTick
	}
	u := r.grant.Until()
	if u <= r.epochNs {
		return -1
	}
	return min((u-r.epochNs)/r.unitNs-1, r.maxTick)
}

// Contains reports whether node and seq belong to the space.
func (sp Space) Contains(node int, seq uint64) bool {
	return node == sp.node && seq >= sp.lo && seq-sp.lo < sp.cap
}

// WithoutFetchAdd returns a copy of r that reserves every ID with
// compare-and-swap. It exists so benchmarks can measure what the fetch-add
// fast path buys; generators never use it.
func (r *Rules) WithoutFetchAdd() *Rules {
	c := *r
	c.addOK = false
	return &c
}
