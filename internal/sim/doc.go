// Package sim is a deterministic simulation of the lease protocol running
// the real code: nodeid.Acquire and its refresher, nodeid.ClaimState, the
// snowlab.Fence and the three generators, on a store in memory that
// injects faults. It has no code of its own outside its tests.
package sim
