package modelcheck

import "fmt"

// claimSteps: the steps of process p while it holds a claim.
func (m *model) claimSteps(s *state, p int, e emit) {
	h := &s.ps[p]
	if h.pend != none {
		t := *s
		m.reserveFailed(&t, p)
		e(act{kind: aReserveTimeout, p: int8(p)}, &t, "")
	}
	if h.paused {
		return
	}
	if !s.holds(p) {
		t := *s
		m.endClaim(&t, p)
		e(act{kind: aLost, p: int8(p)}, &t, "")
	} else if m.b.timed {
		t := *s
		for n := h.first; n < h.first+h.count; n++ {
			t.vol[n].expires = m.expiry(s)
		}
		e(act{kind: aRenew, p: int8(p)}, &t, "")
	}
	if h.pend == none && m.inflight(s, p) < m.b.inflight && int(s.nnet) < maxNet {
		m.reserveSend(s, p, e)
	}
	if h.pend != none {
		m.reserveAck(s, p, e)
	}
	if h.st != holding {
		return
	}
	m.release(s, p, e)
	for n := h.first; n < h.first+h.count && m.b.gens > 0; n++ {
		m.build(s, p, n, e)
	}
	for i := range h.g {
		if h.g[i].live {
			m.mint(s, p, i, e)
		}
	}
}

// reserveSend: the refresher (Lease.refresh) asks for a reservation a
// window ahead of the clock; Acquire's first asks from the clock or the
// floor, whichever is later. ClaimState.Reserve writes that or the
// highest value already made durable, whichever is later: the stored
// value only moves forward.
func (m *model) reserveSend(s *state, p int, e emit) {
	t := *s
	h := &t.ps[p]
	ext := h.clk + int16(m.b.window)
	if h.st == reserving {
		ext = max(h.clk, h.floor) + int16(m.b.window)
	}
	v := max(ext, h.reserved)
	if v > s.now+int16(m.b.ahead) {
		return
	}
	h.pend = ext
	t.net[t.nnet] = msg{first: h.first, count: h.count, gen: h.tok, proc: int16(p), v: v}
	t.nnet++
	e(act{kind: aReserveSend, p: int8(p)}, &t, "")
}

// reserveAck: the store answers that the reservation is durable: the
// fence moves to it (Fence.Extend), or, for Acquire's first, the lease
// and its fence are made, and with them (bounds.gens 0) a generator on
// each node id of the claim.
func (m *model) reserveAck(s *state, p int, e emit) {
	h := &s.ps[p]
	v := max(h.pend, h.reserved)
	for n := h.first; n < h.first+h.count; n++ {
		if r := m.acked(s, int(n), true); r.gen != h.tok || r.holder != int16(p) || r.res < v {
			return
		}
	}
	t := *s
	g := &t.ps[p]
	g.reserved, g.until, g.renewed = v, max(g.until, g.pend), g.clk
	g.pend = none
	if g.st == reserving {
		g.st = holding
		if m.b.gens == 0 {
			for n := g.first; n < g.first+g.count; n++ {
				m.startGen(g, int(n-g.first), n)
			}
		}
	}
	bad := ""
	if b := max(g.bound, m.limit(g)); b > g.bound {
		g.bound = b
		for n := g.first; n < g.first+g.count; n++ {
			if g.succ[n] < b {
				bad = fmt.Sprintf("successorPastPredecessors: h%d's claim may now mint to %d on node %d, where a later claim minted tick %d", p, b, n, g.succ[n])
			}
		}
	}
	e(act{kind: aReserveAck, p: int8(p)}, &t, m.broken(bad))
}

// limit is the furthest tick end process h may mint to: its fence's
// Until, or (mutant holderexpiry) until its lease expires by its own
// clock.
func (m *model) limit(h *proc) int16 {
	if m.b.mutant == mutHolderExpiry {
		return max(h.until, h.renewed+int16(m.b.ttl))
	}
	return h.until
}

// startGen puts a new generator in slot i on node n: it starts after
// the fence's LastEnd (engine.Prepare, InitialState: every tick before
// it is spent).
func (m *model) startGen(h *proc, i int, n int16) {
	start := h.used
	if m.b.mutant == mutStartFloor {
		start = h.floor
	}
	last := start - 1
	if m.b.mutant == mutOffByOne {
		last--
	}
	h.g[i] = gen{live: true, node: n, last: last, seq: int16(m.b.seqs - 1)}
}

// build: a generator is built on node n of the lease (Lease.Config, a
// generator's constructor): its grant stops every live generator on n
// (Fence.Grant), and it starts after LastEnd. The constructor's wait for
// its clock to pass the start is not modelled: it only delays, and a
// clock still behind finds every tick before the start spent.
func (m *model) build(s *state, p int, n int16, e emit) {
	t := *s
	h := &t.ps[p]
	slot := -1
	for i := 0; i < m.b.gens; i++ {
		g := &h.g[i]
		if g.live && g.node == n && m.b.mutant != mutKeepOlder {
			*g = gen{}
		}
		if !g.live && slot < 0 {
			slot = i
		}
	}
	if slot < 0 {
		return
	}
	m.startGen(h, slot, n)
	e(act{kind: aBuild, p: int8(p), a: n}, &t, "")
}

// release is Lease.Release: the fence is revoked and the end of the last
// tick used (LastEnd, at least the floor) is stored in a guarded write
// that frees the node ids. The claim's bound becomes that end. Untimed,
// the store may also find the hold expired and refuse the write, as a
// timed store does once the TTL has run out.
func (m *model) release(s *state, p int, e emit) {
	for _, write := range []bool{true, false} {
		t := *s
		h := &t.ps[p]
		end := max(h.floor, h.used)
		held := t.holds(p)
		if held && write {
			for n := h.first; n < h.first+h.count; n++ {
				t.vol[n].holder, t.vol[n].expires, t.vol[n].res = -1, none, end
			}
		}
		h.bound = end
		m.endClaim(&t, p)
		e(act{kind: aRelease, p: int8(p)}, &t, "")
		if m.b.timed || !held {
			return
		}
	}
}

// mint: generator i of process p hands out one ID (internal/engine's
// plan): a Strict one the clock's tick, or the next sequence value of
// the same tick; a Monotonic one the next free (tick, sequence) at or
// after its clock's tick, at most MaxLead ticks ahead of it. Never a
// tick that ends after the fence's Until. Grant.Use records the tick's
// end before the ID is handed out.
func (m *model) mint(s *state, p, i int, e emit) {
	h := &s.ps[p]
	g := h.g[i]
	full := g.seq+1 >= int16(m.b.seqs)
	var tick, seq int16
	switch {
	case h.clk > g.last:
		tick, seq = h.clk, 0
	case !full && (h.clk == g.last || m.b.monotonic):
		tick, seq = g.last, g.seq+1
	case m.b.monotonic:
		tick, seq = g.last+1, 0
	default:
		return // a Strict generator waits for its clock
	}
	if m.b.monotonic && m.b.lead > 0 && tick > h.clk+int16(m.b.lead) {
		return // ahead of its clock by MaxLead: it waits
	}
	if tick+1 > m.limit(h) {
		return // past the reservation: ErrNoReservation
	}
	t := *s
	th := &t.ps[p]
	th.g[i].last, th.g[i].seq = tick, seq
	end := tick + 1
	if m.b.mutant == mutUseClock {
		end = h.clk + 1
	}
	th.used = max(th.used, end)
	bad := m.record(&t, p, g.node, tick, seq)
	e(act{kind: aMint, p: int8(p), a: g.node, b: tick, c: seq}, &t, m.broken(bad))
}

// record adds the ID (node n, tick, seq) minted by process p to the
// history and says which invariant it breaks, if any.
func (m *model) record(s *state, p int, n, tick, seq int16) string {
	h := &s.ps[p]
	bad := ""
	bit := int(tick-s.mbase)*m.b.seqs + int(seq)
	if bit < 0 || bit >= 64 {
		panic(fmt.Sprintf("modelcheck: tick %d outside the IDs kept from %d", tick, s.mbase))
	}
	note := func(v string) {
		if bad == "" {
			bad = m.broken(v)
		}
	}
	if s.minted[n]&(1<<bit) != 0 {
		note(fmt.Sprintf("noDuplicate: h%d minted node %d tick %d seq %d a second time", p, n, tick, seq))
	}
	s.minted[n] |= 1 << bit
	if d := s.dur[n].res; tick+1 > d {
		note(fmt.Sprintf("withinDurable: h%d minted tick %d on node %d, which ends after the durable reservation %d", p, tick, n, d))
	}
	for q := 0; q < m.b.holders; q++ {
		o := &s.ps[q]
		if q == p || !o.live() || o.rank > h.rank || !o.has(n) {
			continue
		}
		if tick < o.bound {
			note(fmt.Sprintf("successorPastPredecessors: h%d minted tick %d on node %d, before %d, which h%d's earlier claim may mint to", p, tick, n, o.bound, q))
		}
		o.succ[n] = min(o.succ[n], tick)
	}
	if tick < h.pred[n] {
		note(fmt.Sprintf("successorPastPredecessors: h%d minted tick %d on node %d, before %d, which an earlier claim on it was allowed to mint to", p, tick, n, h.pred[n]))
	}
	return bad
}
