package modelcheck

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"strings"
	"time"
)

// stateSet is the set of states seen, each kept once as its key's bytes,
// and numbered in the order first seen (breadth first). Keys live in
// chunks that are never copied, so that the set grows without holding
// two copies of its keys.
type stateSet struct {
	seed   maphash.Seed
	chunks [][]byte
	at     []uint64 // state i: chunk<<32 | offset<<8 | length
	table  []int32  // open addressing: -1 empty, else a state's number
}

const chunkSize = 1 << 20

func newStateSet() *stateSet {
	s := &stateSet{seed: maphash.MakeSeed(), table: make([]int32, 1<<16)}
	for i := range s.table {
		s.table[i] = -1
	}
	return s
}

func (s *stateSet) len() int { return len(s.at) }

func (s *stateSet) key(i int) []byte {
	a := s.at[i]
	off := int(a>>8) & (chunkSize - 1)
	return s.chunks[a>>32][off : off+int(a&0xff)]
}

// add adds k and returns its number, and whether it is new.
func (s *stateSet) add(k []byte) (int, bool) {
	if 2*s.len() >= len(s.table) {
		s.grow()
	}
	mask := uint64(len(s.table) - 1)
	for h := maphash.Bytes(s.seed, k) & mask; ; h = (h + 1) & mask {
		i := s.table[h]
		if i < 0 {
			n := s.len()
			s.table[h] = int32(n)
			s.store(k)
			return n, true
		}
		if bytes.Equal(s.key(int(i)), k) {
			return int(i), false
		}
	}
}

func (s *stateSet) store(k []byte) {
	if len(k) > 0xff {
		panic("modelcheck: a state's key is longer than 255 bytes")
	}
	last := len(s.chunks) - 1
	if last < 0 || len(s.chunks[last])+len(k) > chunkSize {
		s.chunks = append(s.chunks, make([]byte, 0, chunkSize))
		last++
	}
	c := s.chunks[last]
	s.at = append(s.at, uint64(last)<<32|uint64(len(c))<<8|uint64(len(k)))
	s.chunks[last] = append(c, k...)
}

func (s *stateSet) grow() {
	s.table = make([]int32, 2*len(s.table))
	for i := range s.table {
		s.table[i] = -1
	}
	mask := uint64(len(s.table) - 1)
	for i := 0; i < s.len(); i++ {
		h := maphash.Bytes(s.seed, s.key(i)) & mask
		for s.table[h] >= 0 {
			h = (h + 1) & mask
		}
		s.table[h] = int32(i)
	}
}

// bytes is the memory the set holds.
func (s *stateSet) bytes() int { return len(s.chunks)*chunkSize + 8*cap(s.at) + 4*len(s.table) }

var progress = false

// outcome is what a search found.
type outcome struct {
	states      int           // distinct states
	transitions int           // successors generated
	levels      []int         // states first reached at each depth
	complete    bool          // every reachable state was visited
	bad         string        // the invariant broken, "" for none
	kept        string        // with keepGoing: the first invariant broken, searched past
	trace       []string      // the shortest run that breaks it, step by step
	took        time.Duration // wall time
	memory      int           // bytes the state set holds
}

// search explores every state reachable from the initial one, breadth
// first, for at most depth steps (0: until no new state is found), and
// stops at the first invariant broken: breadth first, its run is a
// shortest one. raw searches without the reductions (TestReductionsExact).
func (m *model) search(depth int, raw bool) (outcome, *stateSet) {
	start := time.Now()
	set := newStateSet()
	var parent []int32
	var buf []byte
	init := m.initial()
	set.add(m.key(&init, raw, buf))
	parent = append(parent, -1)
	out := outcome{levels: []int{1}}
	var badFrom int
	var badAct act
	var badKey []byte
	for lo, hi := 0, 1; lo < hi && (depth == 0 || len(out.levels) <= depth); lo, hi = hi, set.len() {
		for i := lo; i < hi && out.bad == ""; i++ {
			s := m.decode(set.key(i), raw)
			m.next(&s, func(a act, t *state, bad string) {
				if out.bad != "" {
					return
				}
				out.transitions++
				buf = m.key(t, raw, buf)
				if bad != "" && m.keepGoing && out.kept == "" {
					out.kept = bad
				}
				if bad != "" && !m.keepGoing {
					out.bad, badFrom, badAct, badKey = bad, i, a, append([]byte(nil), buf...)
					return
				}
				if _, ok := set.add(buf); ok {
					parent = append(parent, int32(i))
				}
			})
		}
		if out.bad != "" {
			break
		}
		if set.len() > hi {
			out.levels = append(out.levels, set.len()-hi)
		}
		if progress {
			fmt.Printf("level %d: %d new, %d total, %v\n", len(out.levels), set.len()-hi, set.len(), time.Since(start).Round(time.Millisecond))
		}
	}
	out.states, out.took = set.len(), time.Since(start)
	out.complete = out.bad == "" && out.levels[len(out.levels)-1] > 0 && (depth == 0 || len(out.levels) <= depth)
	out.memory = set.bytes() + 4*cap(parent)
	if out.bad != "" {
		var path [][]byte
		for i := badFrom; i > 0; i = int(parent[i]) {
			path = append(path, set.key(i))
		}
		for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
			path[l], path[r] = path[r], path[l]
		}
		out.trace, out.bad = m.replay(path, badAct.kind, badKey, raw)
	}
	return out, set
}

// replay finds, from the initial state and step by step, a run through
// the states path (keys) and then a step of kind last to a state with
// key lastKey that breaks an invariant, and describes it with every
// process and time as it is (no reduction applied), one line a step.
func (m *model) replay(path [][]byte, last actKind, lastKey []byte, raw bool) (lines []string, broken string) {
	s := m.initial()
	lines = []string{"     initial: " + m.describe(&s)}
	var buf []byte
	for i := 0; i <= len(path); i++ {
		found := false
		m.next(&s, func(a act, t *state, bad string) {
			if found {
				return
			}
			buf = m.key(t, raw, buf)
			switch {
			case i < len(path) && bad == "" && bytes.Equal(buf, path[i]),
				i == len(path) && bad != "" && a.kind == last && bytes.Equal(buf, lastKey):
				found = true
				line := fmt.Sprintf("%4d %-58s %s", i+1, m.describeAct(&s, a, t), m.describe(t))
				if bad != "" {
					line += "\n     broken: " + bad
					broken = bad
				}
				lines = append(lines, line)
				s = *t
				m.rebase(&s)
			}
		})
		if !found {
			panic(fmt.Sprintf("modelcheck: step %d of the counterexample has no successor in the unreduced model: a reduction is not exact", i+1))
		}
	}
	return lines, broken
}

// describe is a state in one line: store time, each node id's applied
// record (and durable one where it differs), writes in flight, and every
// process.
func (m *model) describe(s *state) string {
	var b strings.Builder
	fmt.Fprintf(&b, "now %d |", s.now)
	for n := 0; n < m.b.nodes; n++ {
		fmt.Fprintf(&b, " n%d %s", n, m.rowString(s.vol[n]))
		if s.dur[n] != s.vol[n] {
			fmt.Fprintf(&b, " (durable %s)", m.rowString(s.dur[n]))
		}
	}
	for i := 0; i < int(s.nnet); i++ {
		mg := s.net[i]
		fmt.Fprintf(&b, " | write h%d tok %d →%d", mg.proc, mg.gen, mg.v)
	}
	for p := 0; p < m.b.holders; p++ {
		h := &s.ps[p]
		fmt.Fprintf(&b, " | h%d %s", p, stageNames[h.st])
		if h.clk != none {
			fmt.Fprintf(&b, " clk %d", h.clk)
		}
		if h.frozen {
			b.WriteString(" frozen")
		}
		if h.paused {
			b.WriteString(" paused")
		}
		if h.st == idle {
			continue
		}
		fmt.Fprintf(&b, " ids %d+%d tok %s floor %d", h.first, h.count, tokString(h.tok), h.floor)
		if h.st == holding {
			fmt.Fprintf(&b, " until %d", h.until)
			for _, g := range h.g {
				if g.live {
					fmt.Fprintf(&b, " gen n%d@%d.%d", g.node, g.last, g.seq)
				}
			}
		}
	}
	return b.String()
}

func (m *model) rowString(r row) string {
	if r.holder < 0 {
		return fmt.Sprintf("{tok %d free res %d}", r.gen, r.res)
	}
	if r.expires == none {
		return fmt.Sprintf("{tok %d h%d res %d}", r.gen, r.holder, r.res)
	}
	return fmt.Sprintf("{tok %d h%d exp %d res %d}", r.gen, r.holder, r.expires, r.res)
}

func tokString(t int16) string {
	if t == none {
		return "dead"
	}
	return fmt.Sprint(t)
}

// describeAct says what step a took from s to t.
func (m *model) describeAct(s *state, a act, t *state) string {
	h := &s.ps[max(a.p, 0)]
	th := &t.ps[max(a.p, 0)]
	switch a.kind {
	case aTick:
		return "time passes (Tick)"
	case aClockStep:
		return fmt.Sprintf("h%d's clock steps %+d", a.p, a.a)
	case aClockFreeze:
		return fmt.Sprintf("h%d's clock freezes or thaws", a.p)
	case aPause:
		return fmt.Sprintf("h%d pauses or resumes", a.p)
	case aCrash:
		return fmt.Sprintf("h%d crashes", a.p)
	case aAcquireSend:
		return fmt.Sprintf("h%d claims node ids %d+%d: tok %d floor %d", a.p, a.a, a.b, th.tok, th.floor)
	case aAcquireAck:
		return fmt.Sprintf("h%d's claim is acknowledged; its clock reads %d", a.p, a.a)
	case aAcquireTimeout:
		return fmt.Sprintf("h%d's claim times out", a.p)
	case aReserveSend:
		return fmt.Sprintf("h%d asks to reserve until %d", a.p, t.net[t.nnet-1].v)
	case aReserveApply:
		return fmt.Sprintf("the store applies h%d's write →%d", a.p, s.net[a.a].v)
	case aDrop:
		return fmt.Sprintf("h%d's write →%d is lost", a.p, s.net[a.a].v)
	case aReserveAck:
		return fmt.Sprintf("h%d's reservation is acknowledged: fence %d", a.p, th.until)
	case aReserveTimeout:
		return fmt.Sprintf("h%d's reservation times out", a.p)
	case aLost:
		return fmt.Sprintf("h%d learns its claim is lost", a.p)
	case aRenew:
		return fmt.Sprintf("the store renews h%d's hold", a.p)
	case aBuild:
		return fmt.Sprintf("h%d builds a generator on node %d (LastEnd %d)", a.p, a.a, max(h.floor, h.used))
	case aMint:
		return fmt.Sprintf("h%d mints node %d tick %d seq %d", a.p, a.a, a.b, a.c)
	case aRelease:
		return fmt.Sprintf("h%d releases, storing %d", a.p, max(h.floor, h.used))
	case aFlush:
		return fmt.Sprintf("the store makes node %d durable", a.a)
	case aStoreCrash:
		return "the store crashes: unflushed writes lost"
	}
	return "?"
}
