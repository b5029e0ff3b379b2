//go:build !race

package sim

// ciSeeds is how many schedules TestSimulation runs by default.
const ciSeeds = 1000
