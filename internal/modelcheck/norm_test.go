package modelcheck

import (
	"bytes"
	"fmt"
	"slices"
)

// normalize maps s to the representative of the states that have the
// same future, so that the search visits each once. Every reduction is
// exact (TestReductionsExact compares the search with one that makes
// none, step by step):
//
//   - Time: the protocol compares times and adds constants to them, and
//     never reads the store's clock as a number, so moving every time of
//     a state by one amount changes no step: times are kept relative to
//     the store's clock (now = 0).
//   - The past: every clock is at least now-K (bounds.skew), so no tick
//     before -K is ever minted again and no tick end at or before -K
//     ever lets one be. Tick ends (reservations, fences, LastEnd,
//     floors, bounds) at or before -K are kept as -K, ticks before -K as
//     -K-1, expiries at or before now as now; a write in flight at or
//     before -K changes nothing and is dropped, and so are the minted
//     IDs before -K. (A bound only grows to a value past -K, so a tick
//     kept as -K-1 compares with it as the tick it stands for.)
//   - Tokens: only equality, the largest and one more are taken of them,
//     so every token moves by the same amount (the lowest durable one is
//     0). A token lower than its node id's durable one never matches the
//     store again: a process's is marked dead, a write's is dropped.
//   - Processes are alike: states that differ by a renaming of the
//     processes are one (encodeMin), as are a process's generators in
//     another order.
func (m *model) normalize(s *state) {
	k := int16(m.b.skew)
	m.rebase(s)
	m.shift(s, s.now)
	m.clamp(s)
	m.tokens(s)
	for i := int(s.nnet) - 1; i >= 0; i-- {
		if s.net[i].v <= -k || s.net[i].gen == none {
			s.removeMsg(i)
		}
	}
	slices.SortFunc(s.net[:s.nnet], cmpMsg)
	for p := 0; p < m.b.holders; p++ {
		h := &s.ps[p]
		slices.SortFunc(h.g[:], cmpGen)
	}
}

// rebase forgets the IDs minted in ticks before now-K, which no clock
// reaches again.
func (m *model) rebase(s *state) {
	base := s.now - int16(m.b.skew)
	for n := 0; n < m.b.nodes; n++ {
		if sh := int(base-s.mbase) * m.b.seqs; sh >= 64 {
			s.minted[n] = 0
		} else if sh > 0 {
			s.minted[n] >>= sh
		}
	}
	s.mbase = max(s.mbase, base)
}

// sh moves a finite time back by d.
func sh(v *int16, d int16) {
	if finite(*v) {
		*v -= d
	}
}

// shift moves every time of s back by d.
func (m *model) shift(s *state, d int16) {
	s.now -= d
	s.mbase -= d
	for n := 0; n < m.b.nodes; n++ {
		sh(&s.vol[n].expires, d)
		sh(&s.vol[n].res, d)
		sh(&s.dur[n].expires, d)
		sh(&s.dur[n].res, d)
		sh(&s.frozenMax[n], d)
	}
	for i := 0; i < int(s.nnet); i++ {
		sh(&s.net[i].v, d)
	}
	for p := 0; p < m.b.holders; p++ {
		h := &s.ps[p]
		for _, v := range []*int16{&h.clk, &h.floor, &h.until, &h.reserved, &h.pend, &h.renewed, &h.used, &h.bound} {
			sh(v, d)
		}
		for n := range h.pred {
			sh(&h.pred[n], d)
			sh(&h.succ[n], d)
		}
		for i := range h.g {
			if h.g[i].live {
				sh(&h.g[i].last, d)
			}
		}
	}
}

// clamp keeps the past as normalize says; s.now is 0.
func (m *model) clamp(s *state) {
	k := int16(m.b.skew)
	end := func(v *int16) { *v = max(*v, -k) }
	for n := 0; n < m.b.nodes; n++ {
		for _, r := range []*row{&s.vol[n], &s.dur[n]} {
			end(&r.res)
			if r.holder < 0 || r.expires == none {
				r.expires = none
			} else {
				r.expires = max(r.expires, 0)
			}
		}
		end(&s.frozenMax[n])
	}
	for p := 0; p < m.b.holders; p++ {
		h := &s.ps[p]
		if h.st >= acquiring {
			end(&h.floor)
		}
		if !h.live() {
			continue
		}
		for _, v := range []*int16{&h.until, &h.reserved, &h.used, &h.bound} {
			end(v)
		}
		if h.pend != none {
			end(&h.pend)
		}
		if m.b.mutant == mutHolderExpiry {
			h.renewed = max(h.renewed, -k-int16(m.b.ttl))
		} else {
			h.renewed = none
		}
		for n := h.first; n < h.first+h.count; n++ {
			end(&h.pred[n])
			h.succ[n] = max(h.succ[n], -k-1)
		}

		for i := range h.g {
			if g := &h.g[i]; g.live && g.last < -k {
				g.last, g.seq = -k-1, int16(m.b.seqs-1)
			}
		}
	}
}

// tokens marks dead tokens and moves the rest so that the lowest durable
// token is 0.
func (m *model) tokens(s *state) {
	low := posInf
	for n := 0; n < m.b.nodes; n++ {
		low = min(low, s.dur[n].gen)
	}
	for n := 0; n < m.b.nodes; n++ {
		s.vol[n].gen -= low
		s.dur[n].gen -= low
	}
	for i := 0; i < int(s.nnet); i++ {
		mg := &s.net[i]
		if s.superseded(mg.first, mg.count, mg.gen-low) {
			mg.gen = none // dropped by normalize
		} else {
			mg.gen -= low
		}
	}
	for p := 0; p < m.b.holders; p++ {
		h := &s.ps[p]
		if h.st == idle {
			continue
		}
		if h.tok != none {
			if h.tok -= low; s.superseded(h.first, h.count, h.tok) {
				h.tok = none
			}
		}
		if h.tok == none && h.live() {
			// A superseded claim's reservations are never answered
			// again, so its bound no longer grows: what later claims
			// minted is never compared with it.
			for n := range h.succ {
				h.succ[n] = posInf
			}
		}
	}
}

func cmpMsg(a, b msg) int {
	for _, d := range [...]int16{a.first - b.first, a.count - b.count, a.gen - b.gen, a.proc - b.proc, a.v - b.v} {
		if d != 0 {
			return int(d)
		}
	}
	return 0
}

// cmpGen orders live generators first, then by node id, tick, sequence.
func cmpGen(a, b gen) int {
	switch {
	case a.live != b.live:
		if a.live {
			return -1
		}
		return 1
	case a.node != b.node:
		return int(a.node - b.node)
	case a.last != b.last:
		return int(a.last - b.last)
	}
	return int(a.seq - b.seq)
}

// enc is v as one byte: the infinities (and none) at the ends.
func enc(v int16) byte {
	switch {
	case v <= -20000:
		return 0
	case v >= 20000:
		return 255
	case v < -126 || v > 126:
		panic(fmt.Sprintf("modelcheck: value %d out of the encoding's range", v))
	}
	return byte(v + 128)
}

func dec(b byte) int16 {
	switch b {
	case 0:
		return negInf
	case 255:
		return posInf
	}
	return int16(b) - 128
}

// encoder writes a state's bytes, with its processes renamed by perm
// (perm[i] is the process written i-th) or as they are (perm nil).
type encoder struct {
	m    *model
	buf  []byte
	perm []int
	inv  [maxProcs]int16
}

func (e *encoder) put(vs ...int16) {
	for _, v := range vs {
		e.buf = append(e.buf, enc(v))
	}
}

// who is process p's new name; -1 (none) stays.
func (e *encoder) who(p int16) int16 {
	if p < 0 || e.perm == nil {
		return p
	}
	return e.inv[p]
}

func (e *encoder) state(s *state, raw bool) []byte {
	if raw {
		e.put(s.now)
	}
	for n := 0; n < e.m.b.nodes; n++ {
		for _, r := range []row{s.vol[n], s.dur[n]} {
			e.put(r.gen, e.who(r.holder), r.expires, r.res)
		}
		e.put(s.frozenMax[n])
		for b := 0; b < 64; b += 8 {
			e.buf = append(e.buf, byte(s.minted[n]>>b))
		}
	}
	net := s.net
	for i := 0; i < int(s.nnet); i++ {
		net[i].proc = e.who(net[i].proc)
	}
	slices.SortFunc(net[:s.nnet], cmpMsg)
	e.buf = append(e.buf, byte(s.nnet))
	for _, mg := range net[:s.nnet] {
		e.put(mg.first, mg.count, mg.gen, mg.proc, mg.v)
	}
	for i := 0; i < e.m.b.holders; i++ {
		p := i
		if e.perm != nil {
			p = e.perm[i]
		}
		e.proc(&s.ps[p])
	}
	return e.buf
}

func (e *encoder) proc(h *proc) {
	flags := int16(0)
	if h.frozen {
		flags |= 1
	}
	if h.paused {
		flags |= 2
	}
	e.put(int16(h.st), flags, h.clk)
	if h.st == idle {
		return
	}
	e.put(h.first, h.count, h.tok, h.floor)
	if !h.live() {
		return
	}
	e.put(h.until, h.reserved, h.pend, h.renewed, h.used, h.rank, h.bound)
	for n := h.first; n < h.first+h.count; n++ {
		e.put(h.pred[n], h.succ[n])
	}
	if h.st != holding {
		return
	}
	for i := range h.g {
		if g := h.g[i]; g.live {
			e.put(1, g.node, g.last, g.seq)
		} else {
			e.put(0)
		}
	}
}

// perms are the renamings of 1, 2 and 3 processes.
var perms = [...][][]int{
	1: {{0}},
	2: {{0, 1}, {1, 0}},
	3: {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}},
}

// encodeMin is the least encoding of s over every renaming of its
// processes that puts their own encodings in order (the others cannot
// be least): the one representative of the states that differ by a
// renaming.
func (m *model) encodeMin(s *state, best []byte) []byte {
	best = m.encodeMinProcs(s, best)
	if !m.nodeSymmetric() {
		return best
	}
	t := m.swapNodes(s)
	sc := &m.scratch
	sc.other = m.encodeMinProcs(&t, sc.other)
	if bytes.Compare(sc.other, best) < 0 {
		best = append(best[:0], sc.other...)
	}
	return best
}

// nodeSymmetric reports whether renaming node id 0 to 1 and 1 to 0
// changes nothing: two node ids, whose runs are {0}, {1} and {0, 1}, and
// no mutant that singles out a range's first.
func (m *model) nodeSymmetric() bool {
	return m.b.nodes == 2 && m.b.mutant != mutFloorFirst
}

// swapNodes is s with node ids 0 and 1 renamed to each other.
func (m *model) swapNodes(s *state) state {
	t := *s
	t.vol[0], t.vol[1] = s.vol[1], s.vol[0]
	t.dur[0], t.dur[1] = s.dur[1], s.dur[0]
	t.minted[0], t.minted[1] = s.minted[1], s.minted[0]
	t.frozenMax[0], t.frozenMax[1] = s.frozenMax[1], s.frozenMax[0]
	other := func(first, count int16) int16 {
		if count == 1 {
			return 1 - first
		}
		return first
	}
	for i := 0; i < int(t.nnet); i++ {
		t.net[i].first = other(t.net[i].first, t.net[i].count)
	}
	slices.SortFunc(t.net[:t.nnet], cmpMsg)
	for p := 0; p < m.b.holders; p++ {
		h := &t.ps[p]
		if h.st == idle {
			continue
		}
		h.first = other(h.first, h.count)
		h.pred[0], h.pred[1] = h.pred[1], h.pred[0]
		h.succ[0], h.succ[1] = h.succ[1], h.succ[0]
		for i := range h.g {
			if h.g[i].live {
				h.g[i].node = 1 - h.g[i].node
			}
		}
		slices.SortFunc(h.g[:], cmpGen)
	}
	return t
}

// encodeMinProcs is encodeMin over the renamings of processes only.
func (m *model) encodeMinProcs(s *state, best []byte) []byte {
	sc := &m.scratch
	sc.own.m = m
	for p := 0; p < m.b.holders; p++ {
		sc.own.buf = sc.procs[p][:0]
		sc.own.proc(&s.ps[p])
		sc.procs[p] = sc.own.buf
	}
	sc.e.m = m
	found := false
	for _, perm := range perms[m.b.holders] {
		ordered := true
		for i := 1; i < len(perm) && ordered; i++ {
			ordered = bytes.Compare(sc.procs[perm[i-1]], sc.procs[perm[i]]) <= 0
		}
		if !ordered {
			continue
		}
		sc.e.perm = perm
		for i, p := range perm {
			sc.e.inv[p] = int16(i)
		}
		sc.e.buf = sc.e.buf[:0]
		b := sc.e.state(s, false)
		if !found || bytes.Compare(b, best) < 0 {
			best, found = append(best[:0], b...), true
		}
	}
	return best
}

// scratch is encodeMin's buffers, kept from call to call.
type scratch struct {
	other []byte
	own   encoder
	procs [maxProcs][]byte
	e     encoder
}

// key is the search's key for s: normalized and least over renamings,
// or (raw: the reference search of TestReductionsExact) as it is.
func (m *model) key(s *state, raw bool, buf []byte) []byte {
	if raw {
		e := encoder{m: m, buf: buf[:0]}
		return e.state(s, true)
	}
	t := *s
	m.normalize(&t)
	return m.encodeMin(&t, buf)
}

// decoder reads what encoder wrote (with no renaming).
type decoder struct {
	b []byte
	i int
}

func (d *decoder) get() int16 {
	v := dec(d.b[d.i])
	d.i++
	return v
}

func (m *model) decode(b []byte, raw bool) state {
	s := m.initial()
	d := decoder{b: b}
	if raw {
		s.now = d.get()
	}
	for n := 0; n < m.b.nodes; n++ {
		for _, r := range []*row{&s.vol[n], &s.dur[n]} {
			r.gen, r.holder, r.expires, r.res = d.get(), d.get(), d.get(), d.get()
		}
		s.frozenMax[n] = d.get()
		for b := 0; b < 64; b += 8 {
			s.minted[n] |= uint64(d.b[d.i]) << b
			d.i++
		}
	}
	s.nnet = int8(d.b[d.i])
	d.i++
	for i := 0; i < int(s.nnet); i++ {
		s.net[i] = msg{first: d.get(), count: d.get(), gen: d.get(), proc: d.get(), v: d.get()}
	}
	for p := 0; p < m.b.holders; p++ {
		s.ps[p] = d.proc()
	}
	return s
}

func (d *decoder) proc() proc {
	st, flags, clk := stage(d.get()), d.get(), d.get()
	h := idleProc(flags&2 != 0)
	h.clk, h.frozen = clk, flags&1 != 0
	if st == idle {
		return h
	}
	h.st = st
	h.first, h.count, h.tok, h.floor = d.get(), d.get(), d.get(), d.get()
	if !h.live() {
		return h
	}
	h.until, h.reserved, h.pend, h.renewed, h.used, h.rank, h.bound = d.get(), d.get(), d.get(), d.get(), d.get(), d.get(), d.get()
	for n := h.first; n < h.first+h.count; n++ {
		h.pred[n], h.succ[n] = d.get(), d.get()
	}
	if st != holding {
		return h
	}
	for i := range h.g {
		if d.get() == 1 {
			h.g[i] = gen{live: true, node: d.get(), last: d.get(), seq: d.get()}
		}
	}
	return h
}
