// Package contention is loadgen contention: what descheduling and cache
// line placement cost snowlab's generators.
//
// Oversubscription runs every generator (mutexgen, the mutex baseline,
// atomicgen, shardedgen in both modes, both policies) in a closed loop
// with as many goroutines as Ps, with k times that, and with k times
// that beside a bounded CPU hog in a child process (package hog),
// reporting IDs/s, sampled tail latency and each goroutine's share of
// the IDs. The placement sweep runs a shared generator word, words
// adjacent in one cache line and words padded apart, unplaced and pinned
// on one CPU, SMT siblings, separate cores and across packages where the
// host has them (place), with hardware counters where a
// PMU opens. Its result file is its own schema (schema).
package contention
