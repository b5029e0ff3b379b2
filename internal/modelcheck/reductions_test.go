package modelcheck

import (
	"fmt"
	"testing"
	"time"
)

// reach is the set of states a search reached (by key) and the step each
// was first reached at.
type reach map[string]int

// reached searches b for at most depth steps (0: to completion), going on
// past broken invariants, and returns every state it reached, by its
// reduced key: with raw, the search itself makes no reduction and its
// states are reduced afterwards, only to compare. A search of the
// protocol (no mutant) must break no invariant.
func reached(t *testing.T, b bounds, depth int, raw bool) (reach, outcome) {
	t.Helper()
	key := fmt.Sprintf("%v %q %v %d %v", b, b.mutant, b.pause || b.freeze, depth, raw)
	if r, ok := reachedBefore[key]; ok {
		return r.r, r.out
	}
	m := &model{b: b, keepGoing: true}
	out, set := m.search(depth, raw)
	if depth == 0 && !out.complete {
		t.Fatalf("%v: the search did not complete", b)
	}
	if b.mutant == "" && out.kept != "" {
		t.Fatalf("%v: the protocol breaks an invariant: %s", b, out.kept)
	}
	r := reach{}
	level, left := 0, out.levels[0]
	var buf []byte
	for i := 0; i < set.len(); i++ {
		for left == 0 {
			level++
			left = out.levels[level]
		}
		left--
		k := set.key(i)
		if raw {
			s := m.decode(k, true)
			k = m.key(&s, false, buf)
		}
		if d, ok := r[string(k)]; !ok || level < d {
			r[string(k)] = level
		}
	}
	reachedBefore[key] = reached1{r, out}
	return r, out
}

// reachedBefore keeps reached's searches for the tests that make the
// same one.
var reachedBefore = map[string]reached1{}

type reached1 struct {
	r   reach
	out outcome
}

// exactCases are small bounds that between them take every step and
// every reduction: timed expiry and renewals, ranges and both renamings,
// generators built and rebuilt, a Monotonic lead, the mutants that read
// what the others do not.
func exactCases() []bounds {
	small := tiny()
	timed := small
	timed.timed = true
	ranges := small
	ranges.nodes, ranges.counts = 2, []int{1, 2}
	gens := small
	gens.gens, gens.monotonic, gens.lead, gens.window = 2, true, 1, 2 // a window of 2: room to lead
	expiry := timed
	expiry.mutant = mutHolderExpiry
	undurable := small
	undurable.mutant = mutUndurable
	first := ranges
	first.mutant = mutFloorFirst
	return []bounds{small, timed, ranges, gens, expiry, undurable, first}
}

// TestReductionsExact checks that the reductions normalize makes (times
// relative to the store's clock, the past forgotten, tokens moved and
// superseded ones marked, processes and node ids renamed) lose nothing
// and add nothing: a search that makes none reaches, within every number
// of steps, exactly the states the reduced search reaches (once reduced).
// The search without them grows with every Tick, so the comparison is
// for a few steps only; the replay of every counterexample
// (TestExhaustiveMutants) checks each step of a longer run as well.
func TestReductionsExact(t *testing.T) {
	skipUnderRace(t)
	for _, b := range exactCases() {
		depth := exactDepth
		if b.nodes > 1 {
			depth--
		}
		want, _ := reached(t, b, depth, true)
		got, _ := reached(t, b, depth, false)
		for k, d := range want {
			if g, ok := got[k]; !ok || g != d {
				s := (&model{b: b}).decode([]byte(k), false)
				t.Fatalf("%v: the unreduced search reaches at step %d a state the reduced one reaches at step %d (-1: never): %s",
					b, d, map[bool]int{true: g, false: -1}[ok], (&model{b: b}).describe(&s))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%v: the reduced search reaches %d states in %d steps, the unreduced one %d", b, len(got), depth, len(want))
		}
		t.Logf("%v (mutant %q): %d states within %d steps, the same with and without the reductions", b, b.mutant, len(got), depth)
	}
}

// TestPauseAndFreezeAddNoState checks that the searches need not pause
// processes or freeze clocks: with them, the search reaches no state,
// once it forgets which processes are paused and which clocks frozen,
// that the complete search without them does not reach. (A paused
// process is one that takes no step, and every run in which it takes none
// is searched; a frozen clock is a clock stepped back one tick after each
// Tick, which a clock within ±K may always be while frozen.) The
// converse is plain: a search with them may pause nothing. With them the
// search is ten times larger, so it goes pauseDepth steps deep.
func TestPauseAndFreezeAddNoState(t *testing.T) {
	skipUnderRace(t)
	for _, b := range []bounds{exactCases()[0], exactCases()[3]} {
		with := b
		with.pause, with.freeze = true, true
		all, _ := reached(t, with, pauseDepth, false)
		without, _ := reached(t, b, 0, false)
		proj := project(b, all, func(s *state) {
			for p := range s.ps {
				s.ps[p].paused, s.ps[p].frozen = false, false
			}
		})
		requireAmong(t, b, proj, without, "with pauses and frozen clocks the search reaches a state it does not reach without")
		t.Logf("%v: the %d states within %d steps with pauses and frozen clocks are, once those are forgotten, %d of the %d states without", b, len(all), pauseDepth, len(proj), len(without))
	}
}

// requireAmong fails the test, saying what and showing the state, unless
// every state of some (keys of b's model) is in all.
func requireAmong(t *testing.T, b bounds, some map[string]bool, all reach, what string) {
	t.Helper()
	for k := range some {
		if _, ok := all[k]; !ok {
			m := &model{b: b}
			s := m.decode([]byte(k), false)
			t.Fatalf("%v: %s: %s", b, what, m.describe(&s))
		}
	}
}

// project is every state of r with what f drops dropped.
func project(b bounds, r reach, f func(*state)) map[string]bool {
	m := &model{b: b}
	out := map[string]bool{}
	for k := range r {
		s := m.decode([]byte(k), false)
		f(&s)
		out[string(m.key(&s, false, nil))] = true
	}
	return out
}

// TestExhaustiveTimedExpiry searches the protocol with the store's
// expiry timed, as lease.qnt has it (a TTL on the store's clock,
// renewals), to completion, requires every invariant to hold, and checks
// that the untimed store, which may find any hold expired whenever it is
// asked, covers it: every state the timed search reaches (its expiries
// forgotten) is a state the untimed search reaches.
func TestExhaustiveTimedExpiry(t *testing.T) {
	skipUnderRace(t)
	for _, b := range []bounds{exactCases()[1]} {
		untimed := b
		untimed.timed = false
		c0, _ := cpuTime()
		timed, out := reached(t, b, 0, false)
		c1, _ := cpuTime()
		all, _ := reached(t, untimed, 0, false)
		proj := project(untimed, timed, func(s *state) {
			for n := range s.vol {
				s.vol[n].expires, s.dur[n].expires = none, none
			}
		})
		requireAmong(t, untimed, proj, all, "the timed search reaches a state the untimed one does not")
		t.Logf("%v (mutant %q):", b, b.mutant)
		t.Logf("    timed: %d distinct states, %d transitions, %d steps deep: complete%s; %v CPU; all among the untimed search's %d states",
			len(timed), out.transitions, len(out.levels)-1, map[bool]string{true: ", every invariant holds", false: ", an invariant is broken (" + invariantOf(out.kept) + ")"}[out.kept == ""],
			(c1 - c0).Round(10*time.Millisecond), len(all))
	}
}
