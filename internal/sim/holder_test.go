package sim

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
)

// holder is one process of the fleet, through its crashes and restarts:
// its clock, its faults and its current lease and generators. Its main
// goroutine draws its actions from rng; the store draws its faults for the
// holder's requests from srng.
type holder struct {
	w         *world
	id        int
	rng, srng *rand.Rand
	count     int // node ids per lease
	policy    snowlab.Policy
	clock     clocksrc.Clock // the lease's
	genClock  clocksrc.Clock // the generators' (genRead)

	// Under w.mu:
	inc          int   // process incarnation: a crash adds one
	offset       int64 // the clock's offset from virtual time, ns
	res          int64 // the clock's resolution, ns
	frozen, jump bool  // a frozen clock; whether it jumps to real time when it thaws
	frozenAt     int64 // the frozen reading
	thawAt       int64 // virtual time the freeze ends
	pauseArmed   time.Duration
	pausedUntil  int64
	partUntil    int64
	reserving    int // Reserve calls under way (the refresher's)
	claims       []*claim

	lease     *nodeid.Lease // main goroutine only
	slot      int           // the lease's refresher's slot (see phase)
	gens      []*gen
	abandoned []*nodeid.Lease            // the crashed processes' leases
	refresher [slots + 1]<-chan struct{} // by slot: the Lost of a crashed process's lease
}

func newHolder(w *world, id int) *holder {
	seed := w.rng.Uint64()
	h := &holder{w: w, id: id, rng: rand.New(rand.NewPCG(seed, 1)), srng: rand.New(rand.NewPCG(seed, 2)),
		count: 1 + w.rng.IntN(2), policy: snowlab.Policy(w.rng.IntN(2))}
	h.res = [...]int64{1, int64(time.Microsecond), int64(time.Millisecond)}[w.rng.IntN(3)]
	h.offset = int64(w.rng.IntN(int(w.p.window/time.Millisecond)*2)-int(w.p.window/time.Millisecond)) * int64(time.Millisecond)
	h.clock = clocksrc.Func(h.read)
	h.genClock = clocksrc.Func(h.genRead)
	return h
}

// clockLocked is the holder's clock at virtual time t; under mu.
func (h *holder) clockLocked(t int64) int64 {
	if h.frozen && t >= h.thawAt {
		h.frozen = false
		if !h.jump {
			h.offset = h.frozenAt - h.thawAt
		}
	}
	v := t + h.offset
	if h.frozen {
		v = h.frozenAt
	}
	return v - v%h.res
}

// read is the clock the lease and the generators use. A pause armed by
// the schedule strikes here, after the reading and before it is returned,
// as a GC pause or a VM suspend between a clock read and its use does.
func (h *holder) read() int64 {
	h.waitPause()
	h.w.mu.Lock()
	v := h.clockLocked(now())
	d := h.pauseArmed
	h.pauseArmed = 0
	if d > 0 {
		h.pausedUntil = now() + int64(d)
		h.w.trace("h%d paused %v", h.id, d)
	}
	h.w.mu.Unlock()
	if d > 0 {
		sleep(d)
	}
	return v
}

// genRead is the generators' clock: read, after putting the main
// goroutine back on its phase. A generator's wait (Go's timers, on
// virtual time) ends at an instant of no one's phase; nothing of the world
// is touched between the wake and this read, and from here on the
// goroutine is on its own phase again, so a wait cannot make two
// goroutines meet at one instant.
func (h *holder) genRead() int64 {
	toPhase(phase(h.id, 0))
	return h.read()
}

// peek is the clock's reading now, for the checker: no pause strikes.
func (h *holder) peek() int64 {
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	return h.clockLocked(now())
}

// waitPause blocks while the process is paused: every goroutine of a
// paused process stops.
func (h *holder) waitPause() {
	for {
		h.w.mu.Lock()
		until := h.pausedUntil
		h.w.mu.Unlock()
		if now() >= until {
			return
		}
		sleep(time.Duration(until - now()))
	}
}

// run is the process's life: acquire a lease, mint, suffer faults, until
// the schedule's time is up; then it releases what it holds.
func (h *holder) run() {
	for time.Now().Before(h.w.ends) {
		toPhase(phase(h.id, 0)) // a Release that waited for its refresher ends on its phase
		if h.lease == nil {
			h.acquire()
		} else {
			h.act()
		}
		sleep(time.Duration(100+h.rng.IntN(2000)) * quantum)
	}
	if h.lease != nil {
		h.release()
	}
	for _, l := range h.abandoned {
		<-l.Lost() // its refresher has stopped, or is about to
	}
}

// act is one step of a process holding a lease.
func (h *holder) act() {
	switch r := h.rng.IntN(100); {
	case r < 70:
		h.mint()
	case r < 76:
		h.clockFault()
	case r < 80:
		h.w.mu.Lock()
		h.pauseArmed = time.Duration(1+h.rng.IntN(int(2*h.w.p.ttl/time.Millisecond))) * time.Millisecond
		h.w.stats.pauses++
		h.w.mu.Unlock()
	case r < 84:
		h.w.mu.Lock()
		h.partUntil = now() + int64(h.rng.IntN(int(2*h.w.p.ttl/time.Millisecond))+1)*int64(time.Millisecond)
		h.w.stats.partitions++
		h.w.mu.Unlock()
	case r < 86:
		h.crash()
	case r < 90:
		h.release()
	case r < 95:
		h.rebuild()
	}
}

// clockFault steps the clock back or forward, or freezes it.
func (h *holder) clockFault() {
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	t := now()
	v := h.clockLocked(t)
	step := int64(1+h.rng.IntN(int(2*h.w.p.window/time.Millisecond))) * int64(time.Millisecond)
	switch h.rng.IntN(3) {
	case 0:
		h.offset -= step
		h.w.stats.steps++
	case 1:
		h.offset += step
		h.w.stats.steps++
	default:
		if !h.frozen {
			h.frozen, h.jump, h.frozenAt, h.thawAt = true, h.rng.IntN(2) == 0, v, t+step
			h.w.stats.freezes++
		}
	}
	h.w.trace("h%d clock fault offset=%d frozen=%v", h.id, h.offset, h.frozen)
}

// crash ends the process: its lease is abandoned (not released), its
// store connection dies, and its refresher, told the claim is gone, stops
// as the process's threads would. The next turn of run starts a new
// process, which acquires afresh.
func (h *holder) crash() {
	h.w.mu.Lock()
	h.inc++
	claims := h.claims
	h.claims = nil
	h.w.stats.crashes++
	h.w.trace("h%d crash", h.id)
	h.w.mu.Unlock()
	for _, cl := range claims {
		cl.cs.Lose("the process crashed")
	}
	if h.lease != nil {
		h.abandoned = append(h.abandoned, h.lease)
		h.refresher[h.slot] = h.lease.Lost()
	}
	h.lease, h.gens = nil, nil
	sleep(time.Duration(1+h.rng.IntN(20)) * time.Millisecond)
}

func (h *holder) options() nodeid.Options {
	p := h.w.p
	return nodeid.Options{Count: h.count, Layout: p.layout(), Window: p.window, Refresh: p.window / 3, Clock: h.clock}
}

// acquire takes a lease and builds a generator on each of its node ids.
func (h *holder) acquire() {
	h.w.mu.Lock()
	c := &client{h: h, inc: h.inc}
	h.w.mu.Unlock()
	// Acquire on a free slot's phase: the refresher it starts keeps it,
	// and this goroutine goes back to its own.
	h.slot = h.freeSlot()
	toPhase(phase(h.id, h.slot))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	l, err := nodeid.Acquire(ctx, c, h.options())
	cancel()
	toPhase(phase(h.id, 0))
	h.w.chk.acquired(h, l, err)
	if err != nil {
		return
	}
	h.lease = l
	first, count := l.Nodes()
	for n := first; n < first+count; n++ {
		h.build(n)
	}
}

// freeSlot is a slot no refresher of this holder runs on: none of a
// crashed process's lease whose refresher has yet to see the loss (its
// Reserve in flight when the process crashed). A refresher closes Lost
// when it sees the loss, and then returns without touching the world.
func (h *holder) freeSlot() int {
	for {
		for s := 1; s <= slots; s++ {
			if h.refresher[s] == nil {
				return s
			}
			select {
			case <-h.refresher[s]:
				h.refresher[s] = nil
				return s
			default:
			}
		}
		sleep(time.Millisecond)
	}
}
