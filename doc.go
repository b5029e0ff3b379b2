// Package snowlab defines Snowflake-style 64-bit IDs: what an ID is, how its
// bits are laid out, and the contract every generator in this module keeps.
//
// An ID is one positive int64: a time field in the high bits, then a node
// field, then a sequence field. Time at the top makes IDs sort by creation
// time; the node field makes IDs from different holders distinct; the
// sequence field separates IDs minted in the same tick by the same holder.
// The default [Layout] is 41 bits of milliseconds since 2024-01-01T00:00:00Z,
// 10 bits of node and 12 bits of sequence, so one node mints at most 4,096
// IDs per millisecond and the time field lasts until 2093.
//
// This package holds the contract and mints nothing: the ID and its
// [Layout], the [Config] a generator is built from, the errors callers test
// with errors.Is, and the [Fence] through which a node-id lease bounds what
// generators may hand out. The generators live in their own packages
// (mutexgen, atomicgen, shardedgen); there is no package-level generator and
// no global layout, so two layouts can live in one process without stepping
// on each other.
//
// Uniqueness rests on two assumptions the caller must keep: one live holder
// per node id, and a clock that does not go backwards on one node. The
// generators defend the second (they wait out a small rewind and refuse a
// large one, see [Config.MaxWait]); the nodeid package defends the first.
package snowlab
