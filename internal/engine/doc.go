// Package engine is the one implementation of the generator semantics that
// mutexgen, atomicgen and shardedgen share.
//
// A generator's state is one uint64 word: the last tick issued in the high
// bits and the count of IDs issued in that tick in the low bits. plan
// decides, from a state word and a clock reading, what a call may do (issue
// some IDs and install a new word, wait for a tick, wait out a rewind,
// refuse, overflow); Take carries the plan out against a Cell, which is an
// atomic.Uint64 for the lock-free generators and a plain word under a mutex
// for the baseline. Keeping the decision in one pure function is what lets
// one conformance suite speak for all three.
package engine
