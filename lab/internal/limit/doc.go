// Package limit is the least work a Snowflake-style generator can do per
// ID: read the clock, then move one atomic word forward, with a
// fetch-and-add (Take: snowlab's generators' own common path, a
// compare-and-swap once per new tick) or a compare-and-swap loop
// (Advance: for a generator whose every ID takes one). A generator whose
// path is the fetch-and-add beats the compare-and-swap loop under
// contention (atomicgen/monotonic read 0.77x of it at G=4), so each is
// read against the loop of its own kind. None can be cheaper, so these loops are the
// yardstick the others are read against: the lab runs them as subjects
// (lab/subject.Limits) beside the generators in every suite, so every
// result file holds each generator's cost as a ratio to the physics of the
// host it ran on. It is no part of minting IDs, so it lives in the lab;
// the library's own bare benchmarks (internal/benchgen in the root module)
// run a copy of the compare-and-swap loops, because the library cannot
// import the lab.
//
// Word is the limit for a generator on one shared word (mutexgen and
// atomicgen, and the peers); PerP, one word per P picked with procPin, is
// the limit for shardedgen. Advance installs max(old+1, now) and Take a
// tick above a count, so the values they return are unique and increase
// per word: the lab's checks hold for
// them as for any generator, with no sequence logic to pay for.
package limit
