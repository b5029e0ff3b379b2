package modelcheck

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// The searches TestExhaustive makes (budget_test.go and
// budget_small_test.go size them): lease.qnt's scope, then each thing it
// left out.
const (
	cfgCore   = "lease.qnt's scope"
	cfgRanges = "claims of several node ids"
	cfgGens   = "several generators on one fence"
	cfgMono   = "a Monotonic generator's lead"
)

var cfgOrder = []string{cfgCore, cfgRanges, cfgGens, cfgMono}

// measured is a search's outcome with what it cost.
type measured struct {
	outcome
	cpu    time.Duration
	hasCPU bool
}

// run searches b to completion (or its first broken invariant) and
// measures it.
func run(b bounds) measured { return runOnly(b, "") }

// runOnly is run checking only the invariant only ("": all three).
func runOnly(b bounds, only string) measured {
	defer debug.SetGCPercent(debug.SetGCPercent(50)) // the state set is most of the heap
	c0, ok0 := cpuTime()
	m := &model{b: b, only: only}
	out, _ := m.search(0, false)
	c1, ok1 := cpuTime()
	return measured{outcome: out, cpu: c1 - c0, hasCPU: ok0 && ok1}
}

func (r measured) cost() string {
	s := fmt.Sprintf("%v wall", r.took.Round(10*time.Millisecond))
	if r.hasCPU {
		s = fmt.Sprintf("%v CPU, %s", r.cpu.Round(10*time.Millisecond), s)
	}
	return fmt.Sprintf("%s, %d MB", s, r.memory>>20)
}

// TestExhaustive searches every state the protocol can reach within each
// configuration's bounds, and fails unless every search is complete and
// every invariant holds in every state. It prints the bounds, the
// number of distinct states and transitions, how many steps deep the
// search went, and what it cost.
func TestExhaustive(t *testing.T) {
	var total time.Duration
	for _, name := range cfgOrder {
		b, ok := configs()[name]
		if !ok {
			continue // not on the small budget (budget_small_test.go)
		}
		r := run(b)
		t.Logf("%s: %v", name, b)
		t.Logf("    %d distinct states, %d transitions, %d steps deep: %s; %s",
			r.states, r.transitions, len(r.levels)-1, verdict(r.outcome), r.cost())
		total += r.cpu
		if r.bad != "" {
			t.Errorf("%s: the protocol breaks an invariant in %d steps:\n%s", name, len(r.trace)-1, strings.Join(r.trace, "\n"))
		} else if !r.complete {
			t.Errorf("%s: the search did not complete", name)
		}
	}
	t.Logf("all searches: %v CPU", total.Round(10*time.Millisecond))
}

func verdict(o outcome) string {
	switch {
	case o.bad != "":
		return "an invariant is broken"
	case o.complete:
		return "complete, every invariant holds (noDuplicate, withinDurable, successorPastPredecessors)"
	}
	return "NOT complete"
}

// mutantCases are the mutants and the configuration each is searched in:
// the smallest that exposes it.
var mutantCases = []struct{ mutant, why, cfg string }{
	{mutOffByOne, "lease.qnt: a generator's start spends every tick before it but one", cfgCore},
	{mutUndurable, "lease.qnt: claims and reservations acknowledged before they are durable", cfgCore},
	{mutHolderExpiry, "lease.qnt: a holder mints until its lease expires by its own clock, not within its durable reservation", cfgCore},
	{mutAsyncCommit, "internal/sim: reservations acknowledged before they are durable", cfgCore},
	{mutFloorFirst, "internal/sim: a range's floor read from its first node id only", cfgRanges},
	{mutFloorInside, "internal/sim: the store reports the floor one tick inside the reservation", cfgCore},
	{mutKeepOlder, "a new generator does not stop the older one on its node id", cfgGens},
	{mutStartFloor, "a new generator starts after the floor, not the fence's LastEnd", cfgGens},
	{mutUseClock, "Grant.Use records the clock's tick, not the tick minted", cfgMono},
}

// TestExhaustiveMutants puts back one bug at a time and requires the
// search to break an invariant, and to mint a duplicate ID (what a user
// would see) when it checks noDuplicate alone; breadth first, each run it
// prints step by step is a shortest one.
func TestExhaustiveMutants(t *testing.T) {
	skipUnderRace(t)
	for _, c := range mutantCases {
		t.Run(c.mutant, func(t *testing.T) {
			b := configs()[c.cfg]
			b.mutant = c.mutant
			for _, only := range []string{"", "noDuplicate"} {
				r := runOnly(b, only)
				what := "an invariant"
				if only != "" {
					what = only
				}
				if r.bad == "" {
					t.Fatalf("mutant %s (%s) breaks %s in none of the %d states of %q: the search no longer catches it", c.mutant, c.why, what, r.states, c.cfg)
				}
				t.Logf("mutant %s (%s), searched in %q for %s: %s broken after %d steps, the fewest (%d states searched; %s):\n%s",
					c.mutant, c.why, c.cfg, what, invariantOf(r.bad), len(r.trace)-1, r.states, r.cost(), strings.Join(r.trace, "\n"))
			}
		})
	}
}

// skipUnderRace skips a test under the race detector or on 32 bits
// (smallBudget).
func skipUnderRace(t *testing.T) {
	if smallBudget {
		t.Skip("on the small budget (the race detector, or 32 bits): make model runs this test")
	}
}

// invariantOf is the name of the invariant a violation message names.
func invariantOf(bad string) string {
	name, _, _ := strings.Cut(bad, ":")
	return name
}
