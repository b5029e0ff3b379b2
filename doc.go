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
//
// # Glossary
//
// One word names one idea across the module, its commands and its errors:
//
//   - node id: the value of an ID's node field, 0..[Layout.MaxNode]. IDs
//     are unique only while each node id has one live holder; [Config.Node]
//     is the first one a generator mints with.
//   - lease: a held range of node ids with its reservation, kept in a store
//     and refreshed in the background (nodeid.Lease, from nodeid.Acquire).
//   - claim: a store's hold on a range of node ids, which a lease wraps
//     (nodeid.Claim, returned by a nodeid.Store's Acquire).
//   - fence: the reservation of a lease's node ids, shared between the lease
//     and the generators that mint with them ([Fence]); past its
//     reserved-until, or once revoked, generators refuse with
//     [ErrNoReservation].
//   - grant: one generator's right to mint on some of a fence's node ids
//     ([Grant], from [Fence.Grant]); a newer grant on the same node ids
//     stops the older one, so two live generators never share a node id.
//   - floor: the reserved-until the previous holder of a node id left
//     behind ([Fence.Floor], nodeid.Claim's Floor): no ID of its successor
//     carries a time before it.
//   - reserved-until: how far ahead in time the current holder may mint,
//     made durable in the store before any ID uses it ([Fence.Until],
//     nodeid.Lease's ReservedUntil); every ID's tick ends at or before it.
//   - window: how far ahead of the clock a lease keeps its reserved-until
//     (nodeid.Options' Window): the longest a holder cut off from its store
//     keeps minting, and the longest a successor waits after a crash.
package snowlab
