// Package sim is a deterministic simulation of the lease protocol running
// the real code: nodeid.Acquire and its refresher, nodeid.ClaimState, the
// snowlab.Fence and the three generators, on a store in memory that
// injects faults. It has no code of its own outside its tests.
//
// A schedule replays exactly from its seed (TestSimulationReplays): every
// goroutine of the world wakes only at instants of its own phase within
// a microsecond (the driver, each holder's main goroutine, and each of a
// holder's lease refreshers on a slot of its own), so no two ever wake at
// one virtual instant, and the code under test never leaves a choice to
// Go's select between two ready cases.
package sim
