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
//   - store layout: the one layout a store's node ids are held under,
//     recorded by its first Acquire; a holder of another is refused
//     (nodeid.ErrLayout), since a node id of one layout mints the IDs of
//     other node ids of another.
//   - fence: the reservation of a lease's node ids, shared between the lease
//     and the generators that mint with them ([Fence]); past its
//     reserved-until, or once revoked, generators refuse with
//     [ErrNoReservation].
//   - grant: one generator's right to mint on some of a fence's node ids
//     ([Grant], from [Fence.Grant]); a newer grant on the same node ids
//     stops the older one, so two live generators never share a node id.
//     A constructor takes it only once it will not refuse: one that
//     refuses (its clock too far behind) leaves the older one minting.
//   - floor: the reserved-until the previous holder of a node id left
//     behind ([Fence.Floor], nodeid.Claim's Floor): no ID of its successor
//     carries a time before it.
//   - reserved-until: how far ahead in time the current holder may mint,
//     made durable in the store before any ID uses it ([Fence.Until],
//     nodeid.Lease's ReservedUntil); every ID's tick ends at or before it.
//   - window: how far ahead of the clock a lease keeps its reserved-until
//     (nodeid.Options' Window): the longest a holder cut off from its store
//     keeps minting, and the longest a successor waits after a crash.
//
// # Layouts and the horizon
//
// The default layout's time field (41 bits of 1 ms ticks since
// 2024-01-01T00:00:00Z) lasts until 2093-09-06; the sign bit stays 0 so the
// ID fits a signed BIGINT. Its node field holds 1,024 holders, its sequence
// field 4,096 IDs per node per millisecond (4.096 M IDs/s, 244.1 ns per ID).
// By hand: time = (id >> 22) ms + the epoch, node = (id >> 12) & 1023,
// seq = id & 4095.
//
// [Layout] describes other splits: the three fields must sum to 63 bits,
// and a 32-bit program also refuses a node or sequence field over 30 bits,
// whose count of values would not fit its int, with [ErrInvalidLayout]
// naming the field; the zero Layout{} is the default. A layout's IDs run
// out at [Layout.Horizon]; [Layout.TimeLeft] is the time from a clock
// reading to it, so a generator's owner can warn years ahead (Baidu's
// uid-generator's default epoch ran out on 2024-11-20, in production).
//
// # Generators
//
//   - mutexgen: one sync.Mutex around (tick, sequence); the reference
//     baseline.
//   - atomicgen: tick and sequence packed in one atomic.Uint64, fetch-add
//     within a tick and compare-and-swap across ticks; the default choice,
//     one node id per process.
//   - shardedgen: one padded atomic word per shard, a shard per P, for many
//     cores minting IDs at once.
//
// All three implement [Generator] (NextID, NextIDs, Stats) and pass the
// same conformance suite. NextIDs reserves a batch with one atomic
// operation under Monotonic, or one per tick under Strict. NextID allocates
// nothing.
//
// # Policies
//
// [Strict] (the default): an ID's timestamp is never ahead of the clock.
// When a tick's sequence values are spent, the call waits for the next
// tick. When the clock goes back by at most [Config.MaxWait] (default 5 ms)
// the call waits it out; further back it fails with [ErrClockBackwards], so
// a health check can take the node out of service. Every wait is bounded: a
// clock that neither advances nor comes back within MaxWait (plus a tick)
// is an error, never a hang. Pick Strict when the embedded time must be the
// creation time (time-range queries on the key, audit trails).
//
// [Monotonic]: a logical clock max(last, now). A spent tick borrows the next
// one, a rewind is absorbed by carrying on from the last tick, and nothing
// is refused. The embedded time is then an upper bound on the creation
// time; [Config.MaxLead] bounds how far ahead of the clock it may run (0 is
// unbounded) and the call waits when it is reached. When the clock is behind
// the last tick by more than MaxLead plus MaxWait (an NTP step back under a
// generator with a lead), the call fails at once with ErrClockBackwards
// instead of blocking for as long as the step. On a lease, a logical clock
// that reaches the end of the reservation waits up to MaxWait for the
// lease to move it forward, then fails with [ErrNoReservation]. Pick
// Monotonic when availability matters more than the timestamp's
// exactness, or for bursts above the per-node ceiling. Its lead is also
// what a restart must clear:
// at full speed and MaxLead 0 it ran 6.4 s ahead after 2 s, and a process
// restarted on that node id minted the same IDs again. A lease's
// reservation covers the lead; on a node id assigned by hand, build with
// nodeid.StaticConfig, which holds every lead on such ids to
// nodeid.StaticMaxLead (100 ms) and starts a restart past it, whatever
// policy and lead its predecessor ran with.
//
// # Encodings
//
// An [ID] is stored by SQL as an int64 (a BIGINT column; [ID.Value],
// [ID.Scan] reads an integer column or its decimal text); as text it is
// decimal ([ID.String], [ID.MarshalText], [ParseID]: map keys, flags, XML,
// YAML and TOML); as JSON it is a string, because JavaScript numbers lose
// integers above 2^53 ([ID.UnmarshalJSON] also takes a bare number);
// [ID.Base32] is a fixed-width 13-character Crockford form that sorts like
// the integer ([ParseBase32] reads it back, either case, I, L and O as 1, 1
// and 0). [Layout.Decode] gives an ID's time, node and sequence and
// [Layout.Compose] builds one from them. Invalid input of any kind wraps
// [ErrInvalidID].
//
// # Time ranges and placement
//
// The ID's high bits are its time, so a time interval is an interval of
// IDs: a query by time is a primary-key range scan, and a table
// partitioned BY RANGE (id) keeps each day in its own partition.
// [Layout.Range] gives the IDs [lo, hi) of a time interval [from, to):
// an ID is in it exactly when its decoded time is. A from or to inside a
// tick rounds up to the next tick. A Strict generator's IDs carry their
// creation time truncated to the tick, so at tick boundaries the range
// holds exactly the rows created in the interval.
//
// Range partitions put every new row in the newest partition. Where that
// hot spot matters (rows spread over several databases or queue
// partitions), place by [Shard]: a shard in 0..n-1 from splitmix64's
// finalizer of the whole ID, which does not follow time. Consecutive IDs,
// one node's IDs over consecutive ticks, and every node's first ID of each
// tick spread evenly over 7, 10, 16 and 1,000 shards (chi-square below the
// p = 0.001 bound in shard_test.go), where id % n puts a node's ticks on one
// shard. The mapping is pinned by a test: rows placed by one version are
// found by the next.
package snowlab
