package peerfaults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// world is the true time of a scenario, which every process's clock reads
// with a skew of its own: the wall clock when the run began, advanced on
// the monotonic clock (inside a testing/synctest bubble, on the bubble's
// virtual clock), so that a fault moves a process's clock and never the
// machine's.
type world struct {
	start time.Time
	base  int64
}

func newWorld() *world {
	now := time.Now()
	return &world{start: now, base: now.UnixNano()}
}

// now is the true time in Unix nanoseconds.
func (w *world) now() int64 { return w.base + int64(time.Since(w.start)) }

// skewClock is one process's clock (a clocksrc.Clock): the true time plus
// a skew, which a rollback steps back.
type skewClock struct {
	w    *world
	skew atomic.Int64
}

func (w *world) clock(skew time.Duration) *skewClock {
	c := &skewClock{w: w}
	c.skew.Store(int64(skew))
	return c
}

// UnixNano implements clocksrc.Clock.
func (c *skewClock) UnixNano() int64 { return c.w.now() + c.skew.Load() }

// step moves the clock by d (back when d is negative).
func (c *skewClock) step(d time.Duration) { c.skew.Add(int64(d)) }

// proc is one process of a scenario: the IDs it minted, the calls refused
// (by sentinel), how far its node id's floor was ahead of its clock when
// its generator was built and how long the constructor waited, by its own
// clock, and that clock's reading when it stopped. A proc that restarts
// another has it as pred: its IDs are checked against its predecessor's.
type proc struct {
	mint      func() (int64, error)
	ids       []int64
	refused   map[string]int
	ahead     time.Duration
	waited    time.Duration
	gen       snowlab.Generator // nil for a peer
	clk       *skewClock        // nil for a peer
	node      int
	pred      *proc
	stoppedAt int64

	lease *nodeid.Lease
	claim *crashClaim // the lease's claim, when its store is a crashStore
}

// mintN asks for n IDs, one call each, and keeps what it gets.
func (p *proc) mintN(n int) {
	for range n {
		id, err := p.mint()
		if err != nil {
			p.refuse(err)
			continue
		}
		p.ids = append(p.ids, id)
	}
}

func (p *proc) refuse(err error) {
	if p.refused == nil {
		p.refused = map[string]int{}
	}
	p.refused[sentinel(err)]++
}

// sentinels are the errors a refusal is counted under, by name.
var sentinels = []struct {
	name string
	err  error
}{
	{"ErrClockBackwards", snowlab.ErrClockBackwards},
	{"ErrNoReservation", snowlab.ErrNoReservation},
	{"ErrNoFreeNode", nodeid.ErrNoFreeNode},
	{"ErrOverflow", snowlab.ErrOverflow},
	{"ErrLost", nodeid.ErrLost},
}

// sentinel names err by the sentinel it wraps; an error that wraps none
// is named by its text, so that nothing is counted under a wrong name.
func sentinel(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return "other: " + err.Error()
}

// mintBatch asks for n IDs in one NextIDs call, as a generator that
// fills a buffer ahead of its callers does (baidu's CachedUidGenerator
// fills a ring of them); a refused batch counts as one refusal.
func (p *proc) mintBatch(n int) {
	dst := make([]snowlab.ID, n)
	k, err := p.gen.NextIDs(dst)
	for _, id := range dst[:k] {
		p.ids = append(p.ids, int64(id))
	}
	if err != nil {
		p.refuse(err)
	}
}

// generatorProc wraps gen, built on node with clk, as a process.
func generatorProc(gen snowlab.Generator, node int, clk *skewClock) *proc {
	return &proc{gen: gen, node: node, clk: clk, mint: func() (int64, error) {
		id, err := gen.NextID()
		return int64(id), err
	}}
}

// timedNew builds a generator with build, on fence, and says how far the
// fence's start (the floor its node id's previous holder left) was ahead
// of clk then, and how long the constructor took by clk when it was ahead
// (0 when it was not: a constructor's own cost is no wait).
func timedNew[G snowlab.Generator](clk *skewClock, fence *snowlab.Fence, build func() (G, error)) (g G, ahead, waited time.Duration, err error) {
	t0 := clk.UnixNano()
	ahead = time.Duration(max(fence.LastEnd()-t0, 0))
	g, err = build()
	if ahead > 0 {
		waited = time.Duration(clk.UnixNano() - t0)
	}
	return g, ahead, waited, err
}

// pace has every process in ps ask for perMs IDs in each millisecond of
// true time for d, in turn, and sleeps to the next millisecond: a steady
// load whose every millisecond has IDs, so that a rollback lands on time
// that was used. A call that waits delays the rest; the schedule then
// catches up without sleeping.
func pace(ctx context.Context, w *world, d time.Duration, perMs int, ps ...*proc) error {
	start := w.now()
	for k := range int64(d / time.Millisecond) {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, p := range ps {
			p.mintN(perMs)
		}
		if wait := start + (k+1)*int64(time.Millisecond) - w.now(); wait > 0 {
			time.Sleep(time.Duration(wait))
		}
	}
	return nil
}

// tally is what a row counts over its processes: the IDs, the IDs minted
// more than once, the order breaks within a process (an ID not above the
// one its process minted before it) and across a restart (a restarted
// process's IDs not above the last its predecessor minted), the calls
// refused by sentinel, the restarted processes' floors and constructors'
// waits, and the generators' rewind waits.
type tally struct {
	IDs, Duplicates, OrderBreaks, RestartBreaks int
	Refused                                     map[string]int
	FloorAhead, Waited                          time.Duration
	RewindWaits                                 uint64
	// SameNode is whether every restarted process minted on its
	// predecessor's node id (snowlab promises order per node id).
	SameNode bool
}

func count(ps ...*proc) tally {
	t := tally{SameNode: true}
	var all []int64
	for _, p := range ps {
		all = append(all, p.ids...)
		if p.gen != nil {
			t.RewindWaits += p.gen.Stats().RewindWaits
		}
		for k, v := range p.refused {
			if t.Refused == nil {
				t.Refused = map[string]int{}
			}
			t.Refused[k] += v
		}
		for i := 1; i < len(p.ids); i++ {
			if p.ids[i] <= p.ids[i-1] {
				t.OrderBreaks++
			}
		}
		if p.pred != nil {
			t.FloorAhead += p.ahead
			t.Waited += p.waited
		}
		if p.pred != nil && len(p.pred.ids) > 0 {
			last := slices.Max(p.pred.ids)
			for _, id := range p.ids {
				if id <= last {
					t.RestartBreaks++
				}
			}
			t.SameNode = t.SameNode && p.node == p.pred.node
		}
	}
	t.IDs = len(all)
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Duplicates++
		}
	}
	return t
}

// crashStore is a nodeid.Store whose claims can crash: crash frees the
// node ids and leaves in the store what the holder's last Reserve put
// there, as a process killed between two refreshes leaves it (a lock
// folder's kernel lock dropped, its reservation file untouched), and
// nothing the dead holder's lease does afterwards reaches the store.
type crashStore struct {
	nodeid.Store
	mu     sync.Mutex
	claims map[int]*crashClaim // the latest claim handed out, by its first node id
}

// Acquire implements nodeid.Store.
func (s *crashStore) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	c, err := s.Store.Acquire(ctx, layout, count, maxNode)
	if err != nil {
		return nil, err
	}
	cc := &crashClaim{Claim: c, reserved: c.Floor()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claims == nil {
		s.claims = map[int]*crashClaim{}
	}
	s.claims[c.First()] = cc
	return cc, nil
}

// claimOf is the claim behind l, a lease acquired from s.
func (s *crashStore) claimOf(l *nodeid.Lease) *crashClaim {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claims[l.Node()]
}

type crashClaim struct {
	nodeid.Claim
	mu       sync.Mutex
	reserved int64 // the highest reservation made durable
	crashed  bool
}

// Reserve implements nodeid.Claim.
func (c *crashClaim) Reserve(ctx context.Context, until int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed {
		return fmt.Errorf("%w: the holder crashed", nodeid.ErrLost)
	}
	if err := c.Claim.Reserve(ctx, until); err != nil {
		return err
	}
	c.reserved = max(c.reserved, until)
	return nil
}

// Release implements nodeid.Claim: after a crash, nothing.
func (c *crashClaim) Release(ctx context.Context, until int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed {
		return nil
	}
	return c.Claim.Release(ctx, until)
}

// crash ends the holder without a word: the store keeps its highest
// reservation (a Release of that value writes nothing new) and frees the
// ids.
func (c *crashClaim) crash(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed {
		return nil
	}
	c.crashed = true
	return c.Claim.Release(ctx, c.reserved)
}
