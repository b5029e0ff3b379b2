// Package subject is what the lab measures: a Subject describes one ID
// generator (its name, library, promises about order and per-tick
// ceiling, how to decode its IDs) and builds fresh Minters of it, so that
// snowlab's own generators (Own), the physical-limit loops they are read
// against (Limits) and other libraries (lab/internal/peers) are driven by the same
// workloads. A Minter needs only Next; a batch call (Filler), slow-path
// counts (StatsReporter), per-shard order (Sharder) and per-goroutine
// state (PerCaller) are optional interfaces that Fill, Stats and Callers
// look for.
package subject
