//go:build race

package sim

// ciSeeds is how many schedules TestSimulation runs under the race
// detector (make test's race step), which slows the simulation about
// sixteenfold: the package (these 50, 10 replayed and the mutants) took
// 7.9 s on a loaded 2-core machine.
const ciSeeds = 50

// replaySeeds is how many schedules TestSimulationReplays runs twice
// (under the race detector the scheduler also shuffles runnable
// goroutines: 60 replayed).
const replaySeeds = 10
