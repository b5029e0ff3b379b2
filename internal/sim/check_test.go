package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// checkSet says which invariants the checker holds a schedule to.
type checkSet int

const (
	// checkAll: every invariant, the protocol's included (a mint within
	// the claim's durable reservation and past its true floor).
	checkAll checkSet = iota
	// checkIDs: only what a user of the IDs sees: uniqueness fleet-wide
	// and each node id's order, within a holder and across hand-offs.
	checkIDs
)

// checker sees every ID and every refusal, and keeps the first violation.
type checker struct {
	w      *world
	checks checkSet
	fail   string
	seen   map[snowlab.ID]int64         // every ID: the token of the claim that minted it
	last   map[[3]int64]snowlab.ID      // {node, token, shard}: the claim's last ID on the node's shard
	spans  map[int64]map[int64][2]int64 // node -> token -> [lowest, highest] ID
}

func newChecker(w *world, checks checkSet) *checker {
	return &checker{w: w, checks: checks, seen: map[snowlab.ID]int64{}, last: map[[3]int64]snowlab.ID{}, spans: map[int64]map[int64][2]int64{}}
}

// violate records a violation (the first one stays); under mu.
func (c *checker) violate(format string, args ...any) {
	if c.fail == "" {
		c.fail = fmt.Sprintf("at %v: ", now()-c.w.ends.UnixNano()) + fmt.Sprintf(format, args...)
	}
}

// acquired judges nodeid.Acquire's result: it may fail only for want of
// a free node id or a reachable store.
func (c *checker) acquired(h *holder, l *nodeid.Lease, err error) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	if err != nil {
		if !errors.Is(err, nodeid.ErrNoFreeNode) && !errors.Is(err, errStore) && !errors.Is(err, nodeid.ErrLost) &&
			!errors.Is(err, context.DeadlineExceeded) {
			c.violate("h%d: Acquire failed with %v", h.id, err)
		}
		c.w.trace("h%d acquire err=%v", h.id, err)
		return
	}
	c.w.stats.acquires++
	first, count := l.Nodes()
	c.w.trace("h%d acquired %d+%d token=%d", h.id, first, count, l.Token())
}

// buildRefused judges a generator's constructor refusing: only a clock
// behind the fence's LastEnd when it was called (it then refused at once,
// or waited MaxFloorWait in vain: the clock runs forward during a build)
// or a lease already lost or released is a reason.
func (c *checker) buildRefused(h *holder, kind string, clock, lastEnd int64, err error) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	c.w.stats.refusals++
	c.w.trace("h%d build %s refused: %v", h.id, kind, err)
	switch {
	case errors.Is(err, snowlab.ErrNoReservation) && h.lease.Fence().Revoked():
	case errors.Is(err, snowlab.ErrClockBackwards) && clock < lastEnd:
	default:
		c.violate("h%d: %s refused to start with the clock at %d and the fence's LastEnd %d: %v", h.id, kind, clock, lastEnd, err)
	}
}

// minted judges one call's IDs and its error. c0 and u0 are the clock and
// the fence's Until just before the call, c1 the clock after it (a pause
// may strike inside the call: the engine then read c0 or c1); lost,
// whether the lease's Lost was closed before it.
func (c *checker) minted(h *holder, g *gen, ids []snowlab.ID, err error, c0, c1, u0 int64, lost bool) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	lay := c.w.p.layout()
	for _, id := range ids {
		c.w.stats.ids++
		c.w.trace("h%d %s id=%d", h.id, g.kind, id)
		p := lay.Decode(id)
		tick := tickOf(p.Time.UnixNano())
		switch {
		case g.dead:
			c.violate("h%d: a %s that was superseded or released minted %d", h.id, g.kind, id)
		case lost:
			c.violate("h%d: %s minted %d after the lease's Lost was closed", h.id, g.kind, id)
		case p.Node != g.node:
			c.violate("h%d: %s on node %d minted %d on node %d", h.id, g.kind, g.node, id, p.Node)
		case h.policy == snowlab.Strict && tick > tickOf(max(c0, c1)):
			c.violate("h%d: Strict %s minted %d at tick %d ahead of its clock's tick %d", h.id, g.kind, id, tick, tickOf(max(c0, c1)))
		case g.lead > 0 && tick > tickOf(max(c0, c1))+g.lead:
			c.violate("h%d: %s minted %d at tick %d, more than MaxLead %d ticks ahead of its clock's tick %d", h.id, g.kind, id, tick, g.lead, tickOf(max(c0, c1)))
		}
		c.checkID(h, g, id, tick)
		g.last, g.spent = tick, false
		if tick > g.high {
			g.high, g.highSpent = tick, false
		}
	}
	if err != nil {
		c.w.stats.refusals++
		c.w.trace("h%d %s refused: %v", h.id, g.kind, err)
		if !c.refusalRight(h, g, err, c0, u0) && !c.refusalRight(h, g, err, c1, u0) {
			c.violate("h%d: %s refused with the clock at tick %d..%d, its last tick %d, the reservation %d: %v",
				h.id, g.kind, tickOf(c0), tickOf(c1), g.last, u0, err)
		}
	}
}

// checkID holds one ID to uniqueness and order, and (checkAll) to the
// claim's durable reservation and true floor; under mu.
func (c *checker) checkID(h *holder, g *gen, id snowlab.ID, tick int64) {
	node := int64(g.node)
	if tok, dup := c.seen[id]; dup {
		c.violate("h%d: %s minted %d, which token %d's claim minted already (duplicate)", h.id, g.kind, id, tok)
	}
	c.seen[id] = g.token
	k := [2]int64{node, g.token}
	// A split shardedgen's IDs increase within each shard's half of the
	// sequence, not across the two (shardedgen's doc): a batch that finds
	// its shard's tick spent takes the other's.
	var shard int64
	if g.kind == "shardedgen-split" && c.w.p.layout().Decode(id).Seq >= 1<<(c.w.p.layout().SeqBits-1) {
		shard = 1
	}
	ks := [3]int64{node, g.token, shard}
	if prev, ok := c.last[ks]; ok && id <= prev {
		c.violate("h%d: %s minted %d after %d on node %d (token %d): out of order", h.id, g.kind, id, prev, node, g.token)
	}
	c.last[ks] = id
	if c.spans[node] == nil {
		c.spans[node] = map[int64][2]int64{}
	}
	s, ok := c.spans[node][g.token]
	if !ok {
		s = [2]int64{int64(id), int64(id)}
	}
	c.spans[node][g.token] = [2]int64{min(s[0], int64(id)), max(s[1], int64(id))}
	if c.checks != checkAll {
		return
	}
	if d := c.w.st.durMax[k]; tickEnd(tick) > d {
		c.violate("h%d: %s minted %d in a tick ending at %d, past its claim's durable reservation %d (token %d)", h.id, g.kind, id, tickEnd(tick), d, g.token)
	}
	if f := c.w.st.floors[k]; tickEnd(tick-1) < f {
		c.violate("h%d: %s minted %d in a tick starting at %d, before its predecessors' reservation %d on node %d", h.id, g.kind, id, tickEnd(tick-1), f, node)
	}
}

// refusalRight: ErrNoReservation is right only when the fence is revoked
// (lost, released, superseded) or the next tick would end past the
// reservation u. ErrClockBackwards needs the clock, when the call began,
// at or behind the last tick (a Strict generator: a rewind, or a spent
// tick the clock did not leave within MaxWait), or a bounded Monotonic
// generator's last tick at least MaxLead ahead of it. That is necessary,
// not sufficient: the engine's waits bound how long it tries, which the
// checker does not time.
//
// The last tick is the latest ID's, or the highest any ID had: a split
// shardedgen has a state word per shard, and a batch that finds its
// shard's tick spent takes the other's, so its latest ID can come from
// the shard that is behind (seed 10187 of make sim: IDs at tick 145 from
// the second shard after tick 149 from the first, then the first shard's
// rewind wait refused with the clock at 148). Either word may be the
// one the refused call tried.
func (c *checker) refusalRight(h *holder, g *gen, err error, clock, u int64) bool {
	return c.refusalRightAt(h, g, err, clock, u, g.last, g.spent) ||
		g.high > g.last && c.refusalRightAt(h, g, err, clock, u, g.high, g.highSpent)
}

// refusalRightAt is refusalRight for a state word whose last tick is
// last (spent: the tick before the start, no ID issued from it).
func (c *checker) refusalRightAt(h *holder, g *gen, err error, clock, u, last int64, spent bool) bool {
	now := tickOf(clock)
	next := now
	if last > next || (last == next && spent) {
		next = last
		if spent {
			next++
		}
	}
	switch {
	case errors.Is(err, snowlab.ErrNoReservation):
		return g.dead || g.fence.Revoked() || tickEnd(next) > u
	case errors.Is(err, snowlab.ErrClockBackwards):
		if h.policy == snowlab.Strict {
			return now <= last
		}
		return g.lead > 0 && now+g.lead <= last
	}
	return false
}

// finish checks the hand-offs: on each node id, every ID of a claim is
// above every ID of the claims before it (the tokens' order). Under mu.
func (c *checker) finish() {
	nodes := make([]int64, 0, len(c.spans))
	for n := range c.spans {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, node := range nodes {
		byTok := c.spans[node]
		toks := make([]int64, 0, len(byTok))
		for t := range byTok {
			toks = append(toks, t)
		}
		slices.Sort(toks)
		top, topTok := byTok[toks[0]][1], toks[0]
		for _, t := range toks[1:] {
			if s := byTok[t]; s[0] <= top {
				c.violate("node %d: token %d minted %d, not above token %d's %d: a successor reused its predecessor's time", node, t, s[0], topTok, top)
			}
			if s := byTok[t]; s[1] > top {
				top, topTok = s[1], t
			}
		}
	}
}
