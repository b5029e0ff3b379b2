package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// errStore is every failure of the simulated network and store; the
// variants say which fault it was.
var (
	errStore       = errors.New("sim: store unreachable")
	errDown        = fmt.Errorf("%w: the store is down", errStore)
	errPartitioned = fmt.Errorf("%w: partitioned", errStore)
	errLostReply   = fmt.Errorf("%w: the reply was lost", errStore)
	errConnReset   = fmt.Errorf("%w: the store crashed under the request", errStore)
	errCrashed     = fmt.Errorf("%w: this process has crashed", errStore)
)

// rec is one node id's record, as a row or a key would hold it.
type rec struct {
	gen     int64 // the last holder's token
	holder  int64 // the holding claim's token; 0 once released
	expires int64 // when the hold runs out unless renewed (store time)
	until   int64 // the reserved-until
}

// store is a lease store in memory with a write-ahead log: mem is what
// operations read and write, dur what survives a crash. A write is durable
// once flushed (the whole of mem copied to dur, as a group commit does),
// which a correct store does before it acknowledges the write; a crash
// puts mem back to dur, losing every write not flushed.
type store struct {
	w        *world
	mem, dur []rec
	// memLayout and durLayout are the layout recorded (nodeid.Store's
	// contract), as mem and dur are the records: "" for none yet.
	memLayout, durLayout string
	inc                  int   // incarnation: each crash adds one
	downUntil            int64 // the store is restarting until then
	lastFlush            int64
	// The checker's ground truth, kept at each flush and grant:
	durMax map[[2]int64]int64 // {node, token}: the highest reserved-until that claim made durable
	floors map[[2]int64]int64 // {node, token}: the node's reserved-until when the claim was granted
}

func newStore(w *world) *store {
	n := 1 << w.p.nodeBits
	return &store{w: w, mem: make([]rec, n), dur: make([]rec, n),
		durMax: map[[2]int64]int64{}, floors: map[[2]int64]int64{}}
}

// flush makes mem durable; under mu.
func (s *store) flush() {
	copy(s.dur, s.mem)
	s.durLayout = s.memLayout
	s.lastFlush = now()
	for n, r := range s.dur {
		if r.holder != 0 {
			k := [2]int64{int64(n), r.holder}
			s.durMax[k] = max(s.durMax[k], r.until)
		}
	}
}

// crash loses every write not flushed and keeps the store down for d;
// under mu.
func (s *store) crash(d time.Duration) {
	s.inc++
	copy(s.mem, s.dur)
	s.memLayout = s.durLayout
	s.downUntil = now() + int64(d)
	s.w.stats.storeCrashes++
	s.w.trace("store crash inc=%d down=%v", s.inc, d)
}

// asyncFlushEvery is how often the async-commit mutant's log writer
// flushes on its own (PostgreSQL's wal_writer_delay is 200 ms against a
// 3 s window; here a third of the window).
func (s *store) asyncFlushEvery() int64 { return int64(s.w.p.window / 3) }

// freeRun is the first of count free ids among 0..maxNode, or -1; under mu.
func (s *store) freeRun(count, maxNode int, t int64) int {
	for first := 0; first+count-1 <= maxNode && first+count <= len(s.mem); first++ {
		free := true
		for n := first; n < first+count; n++ {
			r := s.mem[n]
			free = free && (r.holder == 0 || t >= r.expires)
		}
		if free {
			return first
		}
	}
	return -1
}

// grant takes count ids from first for a new claim; under mu.
func (s *store) grant(c *client, first, count int) *claim {
	var gen, floor int64
	for n := first; n < first+count; n++ {
		gen = max(gen, s.mem[n].gen)
		if s.w.bug != bugFloorFirst || n == first {
			floor = max(floor, s.mem[n].until)
		}
	}
	if s.w.bug == bugFloorInside && floor > 0 {
		floor -= int64(time.Millisecond) // one tick of the layout
	}
	token := gen + 1
	for n := first; n < first+count; n++ {
		s.floors[[2]int64{int64(n), token}] = s.mem[n].until
		s.mem[n] = rec{gen: token, holder: token, expires: now() + int64(s.w.p.ttl), until: s.mem[n].until}
	}
	name := fmt.Sprintf("sim: node ids %d..%d (token %d)", first, first+count-1, token)
	cl := &claim{c: c, first: first, count: count, token: token, floor: floor, cs: nodeid.NewClaimState(name, floor, nil)}
	c.h.claims = append(c.h.claims, cl)
	s.w.trace("grant h%d %d+%d token=%d floor=%d", c.h.id, first, count, token, floor)
	return cl
}

// held reports whether cl still holds every one of its ids by the
// records (expired or not, so long as no one took them); under mu.
func (s *store) held(cl *claim) bool {
	for n := cl.first; n < cl.first+cl.count; n++ {
		if s.mem[n].holder != cl.token {
			return false
		}
	}
	return true
}

// client is one process incarnation's connection to the store: after the
// process crashes (holder.inc moves on) it reaches nothing.
type client struct {
	h   *holder
	inc int
}

func (c *client) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	text, err := layout.MarshalText()
	if err != nil {
		return nil, err
	}
	var cl *claim
	err = c.call(ctx, "acquire", true, func(s *store) error {
		if s.memLayout == "" {
			s.memLayout = string(text)
		}
		if err := nodeid.CheckLayout("sim", s.memLayout, layout); err != nil {
			return err
		}
		first := s.freeRun(count, maxNode, now())
		if first < 0 {
			return fmt.Errorf("%w: sim: no %d free ids in 0..%d", nodeid.ErrNoFreeNode, count, maxNode)
		}
		cl = s.grant(c, first, count)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cl, nil
}

// claim is a hold on node ids; its Reserve is ClaimState's, the step every
// real store over a network shares.
type claim struct {
	c            *client
	first, count int
	token, floor int64
	cs           *nodeid.ClaimState
}

func (cl *claim) First() int            { return cl.first }
func (cl *claim) Count() int            { return cl.count }
func (cl *claim) Floor() int64          { return cl.floor }
func (cl *claim) Token() int64          { return cl.token }
func (cl *claim) Lost() <-chan struct{} { return cl.cs.Lost() }

func (cl *claim) Reserve(ctx context.Context, until int64) error {
	h := cl.c.h
	h.w.mu.Lock()
	h.reserving++
	h.w.mu.Unlock()
	defer func() {
		h.w.mu.Lock()
		h.reserving--
		h.w.mu.Unlock()
	}()
	return cl.cs.Reserve(ctx, until, "the store gave the ids to another holder", func(ctx context.Context, v int64) (bool, error) {
		held := false
		err := cl.c.call(ctx, "reserve", cl.c.h.w.bug != bugAsyncCommit, func(s *store) error {
			if held = s.held(cl); held {
				for n := cl.first; n < cl.first+cl.count; n++ {
					s.mem[n].until = max(s.mem[n].until, v)
					s.mem[n].expires = now() + int64(s.w.p.ttl)
				}
			}
			return nil
		})
		return held, err
	})
}

func (cl *claim) Release(ctx context.Context, until int64) error {
	cl.cs.Lock()
	defer cl.cs.Unlock()
	select {
	case <-cl.cs.Lost():
		return cl.cs.Err()
	default:
	}
	held := false
	err := cl.c.call(ctx, "release", true, func(s *store) error {
		if held = s.held(cl); held {
			for n := cl.first; n < cl.first+cl.count; n++ {
				s.mem[n].until = max(until, cl.floor)
				s.mem[n].holder = 0
			}
		}
		return nil
	})
	if err == nil && !held {
		cl.cs.Lose("the store gave the ids to another holder")
		return cl.cs.Err()
	}
	return err
}
