// Package engine is the one implementation of the generator semantics that
// mutexgen, atomicgen and shardedgen share.
//
// A generator's state is one uint64 word: the last tick issued in the high
// bits and the count of IDs issued in that tick in the low bits. A Cell
// holds the word with the part of the ID space it issues from and its
// slow-path counters (a LockedCell holds a plain word, for a generator
// behind a mutex). plan decides, from a state word and a clock reading,
// what a call may do (issue some IDs and install a new word, wait for a
// tick, wait out a rewind, refuse, overflow); Take carries the plan out on
// a cell. Next, the single-ID fast path, decides its two common cases
// (reuses: the word's tick, its next count; claims: a newer tick) without
// plan, and TestPlan holds those two predicates to plan's table. Keeping
// the decision in one pure function is what lets one conformance suite
// speak for all three generators.
package engine
