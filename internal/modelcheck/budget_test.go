//go:build !race && !386

package modelcheck

// smallBudget is false: every test runs at the bounds below.
const smallBudget = false

// configs are the bounds TestExhaustive searches to completion, sized to
// CI's budget: the package's tests took 35 s of CPU (33.2 user, 2.0
// system; 39 s wall, 313 MB) on this repository's 2-vCPU VM with other
// work beside them (load average 5 to 15), against 70 to 78 s for the
// Quint model's random simulation that make model ran before.
func configs() map[string]bounds {
	core := bounds{name: cfgCore, holders: 2, nodes: 1, counts: []int{1}, window: 2, ttl: 3, skew: 1, step: 1, seqs: 2,
		inflight: 1, spread: 2, ahead: 3}
	ranges := core
	ranges.name, ranges.nodes, ranges.counts, ranges.window, ranges.skew, ranges.seqs, ranges.ahead = cfgRanges, 2, []int{1, 2}, 1, 0, 1, 1
	gens := core
	gens.name, gens.seqs, gens.gens, gens.window, gens.ahead = cfgGens, 1, 2, 1, 2
	mono := core
	mono.name, mono.seqs, mono.monotonic = cfgMono, 1, true
	return map[string]bounds{cfgCore: core, cfgRanges: ranges, cfgGens: gens, cfgMono: mono}
}

// tiny are the bounds the tests of the search itself start from
// (reductions_test.go).
func tiny() bounds {
	return bounds{holders: 2, nodes: 1, counts: []int{1}, window: 1, ttl: 2, skew: 1, step: 1, seqs: 1, inflight: 1, spread: 2, ahead: 2}
}

// exactDepth is how many steps TestReductionsExact compares (one fewer
// with two node ids): the search without reductions grows with every
// Tick. pauseDepth is how deep TestPauseAndFreezeAddNoState searches
// with pauses and frozen clocks.
const exactDepth, pauseDepth = 11, 14
