package sim

import (
	"fmt"
	"runtime"
	"testing"
)

// mutantSeeds is K: each mutant must be caught within this many schedules.
const mutantSeeds = 300

// TestSimulationCatchesMutants puts back, one at a time, the bugs the
// adversarial review found (as switches in the simulated store, not edits
// of the code under test) and requires the simulation to find each: a
// violation of any invariant within mutantSeeds schedules, and one a user
// would see (a duplicate, or a successor's ID not above its
// predecessor's) within the same budget. It logs the first seed of each.
func TestSimulationCatchesMutants(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, bug := range []string{bugAsyncCommit, bugFloorFirst, bugFloorInside} {
		t.Run(bug, func(t *testing.T) {
			for _, checks := range []checkSet{checkAll, checkIDs} {
				seed, fail := firstFailure(t, bug, checks)
				if fail == "" {
					t.Fatalf("checks %d: no violation in %d schedules", checks, mutantSeeds)
				}
				t.Logf("checks %d: seed %d: %s (replay: %s -sim.bug %s)", checks, seed, fail, replay(seed), bug)
			}
		})
	}
}

func firstFailure(t *testing.T, bug string, checks checkSet) (uint64, string) {
	for seed := uint64(1); seed <= mutantSeeds; seed++ {
		if r := runSeed(t, seed, bug, checks); r.fail != "" {
			return seed, r.fail
		}
	}
	return 0, ""
}

// TestSimulationReplays runs replaySeeds schedules twice (or the
// -sim.seeds of them) and requires each to replay exactly: the same
// trace, every store operation, fault and ID at its virtual instant. A
// divergence fails with the seed and the first line that differs. Two
// causes were found and removed: the lease's refresher chose at random
// between a pending tick and Release or a loss (nodeid now checks those
// first), and a holder's goroutines shared two phases, so a refresher of
// a crashed process, or a main goroutine that a Release left on its
// refresher's phase, could wake at the instant another did (every
// refresher now has a slot of its own, see phase). 0 of 3,000 seeds
// diverge.
func TestSimulationReplays(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	n := replaySeeds
	if *flagSeeds > 0 {
		n = *flagSeeds
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		a, b := runSeedTrace(t, seed, bugNone, checkAll, true), runSeedTrace(t, seed, bugNone, checkAll, true)
		if a.digest != b.digest {
			t.Errorf("seed %d did not replay: %s\nreplay: %s", seed, firstDiff(a.lines, b.lines), replay(seed))
		}
	}
}

// firstDiff describes the first line where two traces differ.
func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("line %d: first run %q, second run %q", i+1, a[i], b[i])
		}
	}
	return fmt.Sprintf("one trace is a prefix of the other: %d and %d lines", len(a), len(b))
}
