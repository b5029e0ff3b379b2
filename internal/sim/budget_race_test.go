//go:build race

package sim

// ciSeeds is how many schedules TestSimulation runs by default under the
// race detector, which slows the simulation about tenfold (make test's
// race step runs it): fewer, so that the step's cost stays small.
const ciSeeds = 200
