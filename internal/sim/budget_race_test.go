//go:build race

package sim

// ciSeeds is how many schedules TestSimulation runs under the race
// detector (make test's race step), which slows the simulation about
// sixteenfold: 50 schedules took 9 s on a loaded 2-core machine.
const ciSeeds = 50

// replaySeeds is how many schedules TestSimulationReplays runs twice.
const replaySeeds = 10
