//go:build !race

package sim

// ciSeeds is how many schedules TestSimulation runs by default: about 90
// a second on a loaded 2-core machine, so about 11 s.
const ciSeeds = 1000

// replaySeeds is how many schedules TestSimulationReplays runs twice.
const replaySeeds = 100
