//go:build race || 386

package modelcheck

// smallBudget: these tests run under the race detector (make test's race
// step), which has nothing to find in a search on one goroutine and
// slows it about twentyfold (the package's tests took 202 s of CPU under
// it at the bounds make model uses), or on linux/386 (make test-386),
// where they check the search is right in 32 bits, not the protocol
// again (135 s of CI's test-386 step at make model's bounds, under load):
// TestExhaustive searches small bounds, to completion; the rest run in
// make model.
const smallBudget = true

// configs are TestExhaustive's bounds under the race detector or on
// 32 bits: clocks exact, a window of one tick, one ID a tick.
func configs() map[string]bounds {
	core := bounds{name: cfgCore, holders: 2, nodes: 1, counts: []int{1}, window: 1, ttl: 2, skew: 0, step: 1, seqs: 1,
		inflight: 1, spread: 1, ahead: 1}
	gens := core
	gens.name, gens.gens = cfgGens, 2
	mono := core
	mono.name, mono.monotonic, mono.window, mono.ahead = cfgMono, true, 2, 2
	return map[string]bounds{cfgCore: core, cfgGens: gens, cfgMono: mono}
}

// tiny, exactDepth and pauseDepth are the other tests', which do not run
// on this budget.
func tiny() bounds { return configs()[cfgCore] }

const exactDepth, pauseDepth = 0, 0
