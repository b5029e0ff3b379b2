// Package conformance is the one test suite every generator in this module
// must pass: the layout's literal vectors, ordering, rewinds waited out and
// refused, frozen and retreating clocks, exhaustion, the Monotonic policy
// and its lead, the window's end, bad configuration, and uniqueness under
// concurrency. A generator package runs it from its external test package:
//
//	conformance.Run(t, conformance.Suite{New: func(c snowlab.Config) (snowlab.Generator, error) {
//		return atomicgen.New(c)
//	}})
package conformance

import (
	"testing"

	"github.com/snowlab/snowlab"
)

// Suite describes the generator under test.
type Suite struct {
	// New builds the generator for a configuration.
	New func(snowlab.Config) (snowlab.Generator, error)
	// Shards is how many disjoint spaces the generator issues from (0 or 1
	// for a single node). With more than one, a caller may draw from any
	// of them, so exact per-node counts become bounds and order is
	// checked per shard.
	Shards int
	// NodesUsed is how many consecutive node ids one generator holds,
	// starting at Config.Node (0 means 1).
	NodesUsed int
	// ShardOf maps an ID to the shard that issued it; required when
	// Shards > 1. The generator is the one New returned.
	ShardOf func(g snowlab.Generator, id snowlab.ID) int
}

func (s Suite) multi() bool { return s.Shards > 1 }

func (s Suite) nodesUsed() int { return max(s.NodesUsed, 1) }

// Run runs the whole suite, each case as a subtest, for both policies where
// the case applies to both.
func Run(t *testing.T, s Suite) {
	t.Helper()
	if s.multi() && s.ShardOf == nil {
		t.Fatal("conformance: Suite.ShardOf is required when Shards > 1")
	}
	for _, c := range allCases() {
		t.Run(c.name, func(t *testing.T) {
			if !c.serial {
				t.Parallel()
			}
			c.run(t, s)
		})
	}
}

type testCase struct {
	name   string
	run    func(*testing.T, Suite)
	serial bool // counts process-wide allocations: nothing may run beside it
}

func allCases() []testCase {
	return []testCase{
		{name: "LiteralVectors", run: testLiteralVectors},
		{name: "OrderWithinAndAcrossTicks", run: testOrder},
		{name: "RewindRefused", run: testRewindRefused},
		{name: "RewindWaitedOut", run: testRewindWaitedOut},
		{name: "NegativeMaxWaitRefusesEveryRewind", run: testNegativeMaxWait},
		{name: "RetreatingClockErrorsWithinBound", run: testRetreatingClock},
		{name: "FrozenClockStrict", run: testFrozenStrict},
		{name: "FrozenClockMonotonic", run: testFrozenMonotonic},
		{name: "MonotonicAbsorbsRewind", run: testMonotonicRewind},
		{name: "MonotonicMaxLead", run: testMaxLead},
		{name: "TwoNodesSameInstant", run: testTwoNodes},
		{name: "AdjacentNodesShareNothing", run: testAdjacentNodes},
		{name: "WindowEnd", run: testWindowEnd},
		{name: "BadConfig", run: testBadConfig},
		{name: "NextIDsBatches", run: testBatches},
		{name: "ConcurrentUniqueAndOrdered", run: testConcurrent},
		{name: "ReservationUntil", run: testReservationUntil},
		{name: "ReservationFloor", run: testReservationFloor},
		{name: "ReservationLastEnd", run: testReservationLastEnd},
		{name: "MonotonicWaitsForFence", run: testMonotonicWaitsForFence},
		{name: "FenceNodesHeld", run: testFenceNodes},
		{name: "SuccessiveGeneratorsOnOneFence", run: testSuccessiveOnFence},
		{name: "NewerGeneratorStopsOlder", run: testNewerGeneratorStopsOlder},
		{name: "MonotonicLeadRefusesBackwardStep", run: testMonotonicLeadRefusesStep},
		{name: "HugeMaxWaitSaturates", run: testHugeMaxWait},
		{name: "MessagesShowWallTimeOnly", run: testMessagesWallTimeOnly},
		{name: "Adversarial", run: testAdversarial},
		{name: "ZeroAllocs", run: testZeroAllocs, serial: true},
	}
}
