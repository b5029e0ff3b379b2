// Package limit is the least work a Snowflake-style generator can do per
// ID: read the clock, then move one atomic word forward with a
// compare-and-swap. No generator can be cheaper, so these loops are the
// yardstick the others are read against: the lab runs them as subjects
// (lab/subject.Limits) beside the generators in every suite, so every
// result file holds each generator's cost as a ratio to the physics of the
// host it ran on. It is no part of minting IDs, so it lives in the lab;
// the library's own bare benchmarks (internal/benchgen in the root module)
// run a copy of the same two loops, because the library cannot import the
// lab.
//
// Word is the limit for a generator on one shared word (mutexgen and
// atomicgen, and the peers); PerP, one word per P picked with procPin, is
// the limit for shardedgen. Both install max(old+1, now), so the values
// they return are unique and increase per word: the lab's checks hold for
// them as for any generator, with no sequence logic to pay for.
package limit
