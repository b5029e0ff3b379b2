package modelcheck

import "fmt"

// The sizes of the state's arrays: the largest bounds a search may ask
// for.
const (
	maxProcs = 3
	maxNodes = 2
	maxGens  = 2
	maxNet   = 6
)

// Times are ticks of the store's clock, int16. negInf and posInf stand for
// "before every time" and "after every time"; values beyond ±infinite are
// never shifted (see finite).
const (
	negInf int16 = -30000
	posInf int16 = 30000
	none         = negInf // a field not in use: no reservation in flight, a dead token
)

func finite(v int16) bool { return v > -20000 && v < 20000 }

// stage is where a process is in nodeid.Acquire and the lease's life.
type stage uint8

const (
	idle      stage = iota // no claim
	acquiring              // Store.Acquire sent, no answer yet
	reserving              // the claim is held; Acquire's first reservation not yet durable
	holding                // Acquire returned: the fence exists, generators mint
)

var stageNames = [...]string{"idle", "acquiring", "reserving", "holding"}

// The mutants: each puts back one bug (mutant_test.go lists where each
// comes from).
const (
	mutNone         = ""
	mutOffByOne     = "offbyone"              // a generator's start spends every tick before it but one
	mutUndurable    = "undurable"             // claims and reservations acknowledged before they are durable
	mutHolderExpiry = "holderexpiry"          // a holder mints until its lease expires by its own clock
	mutAsyncCommit  = "async-commit"          // reservations acknowledged before they are durable
	mutFloorFirst   = "floor-first-id"        // a range's floor read from its first node id only
	mutFloorInside  = "floor-one-tick-inside" // the store reports the floor one tick early
	mutKeepOlder    = "grant-keeps-older"     // a new generator does not stop the older one on its node id
	mutStartFloor   = "start-at-floor"        // a new generator starts after the floor, not the fence's LastEnd
	mutUseClock     = "use-clock"             // Grant.Use records the clock's tick, not the tick minted
)

// bounds are what one search explores: the processes and node ids, the
// protocol's constants, how far clocks may stray, and the generators.
type bounds struct {
	name    string
	holders int   // processes contending
	nodes   int   // node ids in the layout
	counts  []int // claim sizes a process may ask for (nodeid.Options.Count)
	window  int   // W: how far ahead of its clock a holder reserves (Options.Window)
	// ttl is how long the store keeps a hold that is not renewed, with
	// timed. Untimed, the store may find any hold expired whenever a
	// process asks for its node ids (an Acquire takes any run), which
	// covers every TTL and renewal (TestUntimedExpiryCoversTimed), and ttl
	// is only what a holder believes (mutant holderexpiry).
	ttl   int
	timed bool
	skew  int // K: a process's clock stays within ±K ticks of the store's
	step  int // a clock step moves a clock by 1..step ticks, either way
	seqs  int // IDs per tick per node id (the sequence field's values)
	// gens is how many generators a holder may have at once, built one at
	// a time from its lease (Lease.Config); 0: one per node id of the
	// claim, built with the lease (a node-per-shard shardedgen).
	gens      int
	monotonic bool // the generators' policy: Monotonic, else Strict
	lead      int  // Monotonic's MaxLead in ticks; 0: unbounded
	inflight  int  // reservation writes one process may have in flight
	// ahead bounds how far past the store's clock a reservation may
	// reach. A successor whose clock is behind its floor reserves a
	// window past the floor, so successors that crash one after another
	// push the reservation ever further ahead; ahead stops that.
	ahead  int
	spread int // tokens stay within this of the lowest durable one
	// pause and freeze add process pauses and frozen clocks, which the
	// search needs not (TestPauseAndFreezeAddNoState shows it).
	pause, freeze bool
	mutant        string
}

func (b bounds) String() string {
	pol := "Strict"
	if b.monotonic {
		pol = "Monotonic, MaxLead unbounded"
		if b.lead > 0 {
			pol = fmt.Sprintf("Monotonic, MaxLead %d ticks", b.lead)
		}
	}
	gens := "one per node id, built with the lease"
	if b.gens > 0 {
		gens = fmt.Sprintf("up to %d at once, built and rebuilt on any node id of the claim", b.gens)
	}
	expiry := fmt.Sprintf("holds expire %d ticks after their last renewal, on the store's clock", b.ttl)
	if !b.timed {
		expiry = "an acquire may find any hold expired"
	}
	return fmt.Sprintf("%d holders, %d node ids, claims of %v node ids, window %d ticks, %s, "+
		"clocks within ±%d ticks of the store's, steps of 1..%d ticks, %d IDs a tick, generators: %s, %s; "+
		"%d reservation writes in flight per process, reservations at most %d ticks ahead of the store's clock, "+
		"tokens within %d of the lowest durable one",
		b.holders, b.nodes, b.counts, b.window, expiry, b.skew, b.step, b.seqs, gens, pol, b.inflight, b.ahead, b.spread)
}

// row is the store's record of one node id (a row, a key).
type row struct {
	gen     int16 // the token of the last claim granted
	holder  int16 // the process holding it; -1 once released, or never held
	expires int16 // when the hold runs out unless renewed (store time); none when not held
	res     int16 // the reserved-until
}

// msg is a reservation write on its way to the store.
type msg struct{ first, count, gen, proc, v int16 }

// gen is one generator's state word on its node id.
type gen struct {
	live bool // false: stopped by a newer grant, or never built
	node int16
	last int16 // the tick of the state word
	seq  int16 // the last sequence value used in it (seqs-1: spent)
}

// proc is one process: its clock and, while it holds a claim, the claim,
// the fence, its generators and the history the invariants need.
type proc struct {
	st     stage
	frozen bool  // its clock stands still while time passes
	paused bool  // it takes no step
	clk    int16 // none while it holds no acknowledged claim (see acquireAck)

	first, count int16
	tok          int16 // the claim's token; none once it can never again match the store
	floor        int16 // the claim's Floor
	until        int16 // the fence's Until
	reserved     int16 // the highest reserved-until made durable (ClaimState)
	pend         int16 // the reservation in flight: the value the fence will extend to; none
	renewed      int16 // its clock when its last reservation was acknowledged (mutant holderexpiry)
	used         int16 // the fence's LastEnd: the latest tick end any generator claimed, at least the floor
	g            [maxGens]gen

	// History: the claim's place in the order claims were acknowledged
	// (0 the oldest live one), the furthest tick end it was ever allowed
	// to mint to, and per node id the highest bound of the earlier claims
	// that ended (pred) and the lowest tick the later claims minted
	// (succ).
	rank, bound int16
	pred, succ  [maxNodes]int16
}

// state is one state of the whole system.
type state struct {
	now      int16
	vol, dur [maxNodes]row // the store's applied and durable records
	net      [maxNet]msg
	nnet     int8
	ps       [maxProcs]proc
	// minted has a bit per (tick, sequence) minted on each node id, bit
	// (t-mbase)*seqs+seq; ticks before mbase are not kept.
	minted [maxNodes]uint64
	mbase  int16
	// frozenMax is, per node id, the highest bound of every claim that
	// ended on it.
	frozenMax [maxNodes]int16
}

// idleProc is a process with no claim.
func idleProc(paused bool) proc {
	p := proc{st: idle, clk: none, paused: paused, tok: none, floor: none, until: none,
		reserved: none, pend: none, renewed: none, used: none, rank: 0, bound: none}
	for n := range p.pred {
		p.pred[n], p.succ[n] = none, none
	}
	return p
}

func (m *model) initial() state {
	var s state
	for n := range s.vol {
		s.vol[n] = row{gen: 0, holder: -1, expires: none, res: 0}
		s.frozenMax[n] = negInf
		if n >= m.b.nodes {
			s.vol[n].res = none
			s.frozenMax[n] = none
		}
	}
	s.dur = s.vol
	for p := range s.ps {
		s.ps[p] = idleProc(false)
	}
	s.mbase = -int16(m.b.skew)
	return s
}

// model is the protocol under one set of bounds.
type model struct {
	b         bounds
	keepGoing bool   // search on past broken invariants (TestReductionsExact)
	only      string // check this invariant only ("": all three)
	scratch   scratch
}

// broken is bad, a violation of one invariant, unless the model checks
// only another.
func (m *model) broken(bad string) string {
	if m.only != "" && invariantOf(bad) != m.only {
		return ""
	}
	return bad
}

// act is one step: its kind, the process and its arguments.
type act struct {
	kind    actKind
	p       int8
	a, b, c int16
}

type actKind uint8

const (
	aTick actKind = iota
	aClockStep
	aClockFreeze
	aPause
	aCrash
	aAcquireSend
	aAcquireAck
	aAcquireTimeout
	aReserveSend
	aReserveApply
	aDrop
	aReserveAck
	aReserveTimeout
	aLost
	aRenew
	aBuild
	aMint
	aRelease
	aFlush
	aStoreCrash
)

// emit receives one successor: the step, the state after it, and the
// invariant it broke ("" for none).
type emit func(a act, t *state, bad string)

// next calls e with every successor of s.
func (m *model) next(s *state, e emit) {
	m.timeSteps(s, e)
	m.storeSteps(s, e)
	for p := 0; p < m.b.holders; p++ {
		m.procSteps(s, p, e)
	}
}

// timeSteps: wall time passes (Tick). Quint's Jump (time moving a TTL
// and more at once) is TTL+1 Ticks, which the search takes one by one.
func (m *model) timeSteps(s *state, e emit) {
	t := *s
	t.now++
	for p := 0; p < m.b.holders; p++ {
		h := &t.ps[p]
		switch {
		case h.clk == none:
		case !h.frozen:
			h.clk++
		case h.clk < t.now-int16(m.b.skew):
			return // a frozen clock may fall at most K ticks behind
		}
	}
	// A reservation request is answered, if at all, before its value
	// falls K ticks into the past: the refresher's request times out
	// after Refresh (at most Window/2), Acquire's first under the
	// caller's deadline.
	for p := 0; p < m.b.holders; p++ {
		h := &t.ps[p]
		if (h.st == reserving || h.st == holding) && h.pend != none && max(h.pend, h.reserved) <= t.now-int16(m.b.skew) {
			m.reserveFailed(&t, p)
		}
	}
	e(act{kind: aTick, p: -1}, &t, "")
}

// storeSteps: the store flushes a node id's record, crashes, applies or
// loses a write in flight.
func (m *model) storeSteps(s *state, e emit) {
	dirty := false
	for n := 0; n < m.b.nodes; n++ {
		if s.vol[n] != s.dur[n] {
			dirty = true
			t := *s
			t.dur[n] = t.vol[n]
			e(act{kind: aFlush, p: -1, a: int16(n)}, &t, "")
		}
	}
	if dirty {
		t := *s
		t.vol = t.dur
		e(act{kind: aStoreCrash, p: -1}, &t, "")
	}

	for i := 0; i < int(s.nnet); i++ {
		t := *s
		mg := t.net[i]
		t.removeMsg(i)
		e(act{kind: aDrop, p: mg.proc8(), a: int16(i)}, &t, "")
		if t.guard(int(mg.first), int(mg.count), mg.gen, mg.proc) {
			for n := mg.first; n < mg.first+mg.count; n++ {
				t.vol[n].res = max(t.vol[n].res, mg.v)
			}
		}
		e(act{kind: aReserveApply, p: mg.proc8(), a: int16(i)}, &t, "")
	}
}

func (mg msg) proc8() int8 { return int8(mg.proc) }

func (s *state) removeMsg(i int) {
	copy(s.net[i:], s.net[i+1:s.nnet])
	s.nnet--
	s.net[s.nnet] = msg{}
}

// guard is the store's guarded write's condition: every node id of the
// range still belongs to the claim gen of process p and its hold has not
// expired.
func (s *state) guard(first, count int, gen, p int16) bool {
	for n := first; n < first+count; n++ {
		r := s.vol[n]
		if r.gen != gen || r.holder != p || r.expires != none && r.expires <= s.now {
			return false
		}
	}
	return true
}

// free reports whether node id n may be claimed: released, never held,
// or its hold expired (untimed: any hold may have).
func (m *model) free(s *state, n int) bool {
	r := s.vol[n]
	return !m.b.timed || r.holder == -1 || r.expires <= s.now
}

func (s *state) holds(p int) bool {
	h := &s.ps[p]
	return s.guard(int(h.first), int(h.count), h.tok, int16(p))
}

// procSteps: the faults of process p, then its steps of the protocol.
func (m *model) procSteps(s *state, p int, e emit) {
	h := &s.ps[p]
	for d := -m.b.step; d <= m.b.step && h.live(); d++ {
		if c := h.clk + int16(d); d != 0 && c >= s.now-int16(m.b.skew) && c <= s.now+int16(m.b.skew) {
			t := *s
			t.ps[p].clk = c
			e(act{kind: aClockStep, p: int8(p), a: int16(d)}, &t, "")
		}
	}
	if m.b.freeze && h.live() && (h.frozen || h.clk > s.now-int16(m.b.skew)) {
		t := *s
		t.ps[p].frozen = !h.frozen
		e(act{kind: aClockFreeze, p: int8(p)}, &t, "")
	}
	if m.b.pause {
		t := *s
		t.ps[p].paused = !h.paused
		e(act{kind: aPause, p: int8(p)}, &t, "")
	}
	if h.st != idle {
		t := *s
		m.endClaim(&t, p)
		t.ps[p].paused = false
		e(act{kind: aCrash, p: int8(p)}, &t, "")
	}
	switch h.st {
	case idle:
		if !h.paused {
			m.acquireSend(s, p, e)
		}
	case acquiring:
		t := *s
		t.ps[p] = idleProc(h.paused)
		e(act{kind: aAcquireTimeout, p: int8(p)}, &t, "")
		if !h.paused {
			m.acquireAck(s, p, e)
		}
	case reserving, holding:
		m.claimSteps(s, p, e)
	}
}

// acquireSend is Store.Acquire's transaction: a run of free node ids
// gets a new token (one more than the largest over the run), the holder
// and an expiry on the store's clock; the previous reserved-until, the
// largest over the run, is read as the claim's floor.
func (m *model) acquireSend(s *state, p int, e emit) {
	lowest := posInf
	for n := 0; n < m.b.nodes; n++ {
		lowest = min(lowest, s.dur[n].gen)
	}
	for _, count := range m.b.counts {
		for first := 0; first+count <= m.b.nodes; first++ {
			free, tok, floor := true, int16(0), negInf
			for n := first; n < first+count; n++ {
				r := s.vol[n]
				free = free && m.free(s, n)
				tok = max(tok, r.gen+1)
				if m.b.mutant != mutFloorFirst || n == first {
					floor = max(floor, r.res)
				}
			}
			if !free || tok-lowest > int16(m.b.spread) {
				continue
			}
			if m.b.mutant == mutFloorInside {
				floor--
			}
			t := *s
			for n := first; n < first+count; n++ {
				t.vol[n] = row{gen: tok, holder: int16(p), expires: m.expiry(s), res: s.vol[n].res}
			}
			h := &t.ps[p]
			h.st, h.first, h.count, h.tok, h.floor = acquiring, int16(first), int16(count), tok, floor
			e(act{kind: aAcquireSend, p: int8(p), a: int16(first), b: int16(count)}, &t, "")
		}
	}
}

// expiry is a hold's expiry granted or renewed now: none, untimed.
func (m *model) expiry(s *state) int16 {
	if !m.b.timed {
		return none
	}
	return s.now + int16(m.b.ttl)
}

// acked is the record an acknowledgement reads: the durable one, or,
// for the mutants that answer before the write is durable, the applied
// one.
func (m *model) acked(s *state, n int, reserve bool) row {
	if m.b.mutant == mutUndurable || reserve && m.b.mutant == mutAsyncCommit {
		return s.vol[n]
	}
	return s.dur[n]
}

// acquireAck: the store's answer reaches nodeid.Acquire, once the claim is
// durable. The claim takes its place in the history; Acquire's first
// reservation comes next.
//
// Until then the process's clock is not modelled: nothing before reads
// it (the renewal time the holderexpiry mutant keeps is set again by
// the first reservation's answer, before any ID). Here it takes any
// value within ±K of the store's, as steps of the clock would have made
// it, each a successor of its own: the states with the process's clock
// anywhere else are the same states but for that clock.
func (m *model) acquireAck(s *state, p int, e emit) {
	h := &s.ps[p]
	for n := h.first; n < h.first+h.count; n++ {
		if r := m.acked(s, int(n), false); r.gen != h.tok || r.holder != int16(p) {
			return
		}
	}
	t := *s
	g := &t.ps[p]
	g.st, g.until, g.reserved, g.used = reserving, g.floor, g.floor, g.floor
	// The claim may mint nothing until its first reservation is
	// acknowledged. (lease.qnt started a claim's bound at its floor,
	// which is harmless on one node id; on a range the floor is the
	// largest over the range, and a successor on one of its node ids
	// rightly starts past that node id's own reservation only.)
	g.rank, g.bound = 0, negInf
	for q := 0; q < m.b.holders; q++ {
		if q != p && t.ps[q].live() {
			g.rank++
		}
	}
	for n := g.first; n < g.first+g.count; n++ {
		g.pred[n], g.succ[n] = t.frozenMax[n], posInf
	}
	for c := -m.b.skew; c <= m.b.skew; c++ {
		g.clk = t.now + int16(c)
		g.renewed = g.clk
		e(act{kind: aAcquireAck, p: int8(p), a: g.clk}, &t, "")
	}
}

// live reports whether the process holds an acknowledged claim.
func (h *proc) live() bool { return h.st == reserving || h.st == holding }

func (h *proc) has(n int16) bool { return n >= h.first && n < h.first+h.count }

// endClaim: process p's claim ends (a crash, a loss, a release, a failed
// first reservation); its bound is final, so it joins the bounds every
// later claim on its node ids must stay past. p becomes idle.
func (m *model) endClaim(s *state, p int) {
	h := &s.ps[p]
	if h.live() {
		for q := 0; q < m.b.holders; q++ {
			o := &s.ps[q]
			if q == p || !o.live() || o.rank < h.rank {
				continue
			}
			for n := h.first; n < h.first+h.count; n++ {
				if o.has(n) {
					o.pred[n] = max(o.pred[n], h.bound)
				}
			}
			o.rank--
		}
		for n := h.first; n < h.first+h.count; n++ {
			s.frozenMax[n] = max(s.frozenMax[n], h.bound)
		}
	}
	*h = idleProc(h.paused)
}

// reserveFailed: a reservation got no answer in time. The refresher
// leaves the fence where it is; Acquire's first reservation releases the
// claim with its floor, and Acquire fails.
func (m *model) reserveFailed(s *state, p int) {
	h := &s.ps[p]
	h.pend = none
	if h.st == reserving {
		if s.holds(p) {
			for n := h.first; n < h.first+h.count; n++ {
				s.vol[n].holder, s.vol[n].expires, s.vol[n].res = -1, none, h.floor
			}
		}
		m.endClaim(s, p)
	}
}

// inflight counts process p's writes in flight that may still change
// the store: of a token not yet superseded on every node id (see
// tokens), and past -K (see normalize).
func (m *model) inflight(s *state, p int) int {
	k := 0
	for i := 0; i < int(s.nnet); i++ {
		if mg := s.net[i]; mg.proc == int16(p) && mg.v > s.now-int16(m.b.skew) && !s.superseded(mg.first, mg.count, mg.gen) {
			k++
		}
	}
	return k
}

// superseded reports whether token tok is lower than the durable token of
// one of the node ids first..first+count-1: it never matches the store
// again.
func (s *state) superseded(first, count, tok int16) bool {
	for n := first; n < first+count; n++ {
		if tok < s.dur[n].gen {
			return true
		}
	}
	return false
}
