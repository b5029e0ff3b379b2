// Package shardedgen spreads one generator over per-P shards so that
// goroutines on different Ps never touch the same cache line.
//
// Each shard is an atomicgen-style state word on a cache line of its own,
// issuing from a part of the ID space no other shard touches: in
// NodePerShard mode shard i is node Config.Node+i with the whole sequence
// field, so a process holds Shards node ids and reaches Shards times the
// per-node ceiling; in SplitSequence mode all shards share Config.Node and
// divide its sequence field, so the process holds one node id and the
// per-node ceiling is split, not multiplied.
//
// A NodePerShard generator mints only on node ids its Config names: Shards
// node ids from Node on, and with Shards 0 the node ids its lease holds
// (Config.Fence's range from Node) or, without one, Node alone. Its shard
// count never follows the host's core count, which would take node ids
// another process was given. To reach more than one node's ceiling, lease
// several node ids (nodeid.Options.Count) or name the count: Shards 4,
// Node 8 holds nodes 8..11, and the next process must start at 12.
//
// A call uses the shard of the P it runs on; a Strict NextIDs batch that
// needs more than its shard has left in the current tick also takes what
// the other shards have left before it waits. IDs are unique across shards
// and increase within a shard; they do not increase across shards, since a
// goroutine can move between Ps between two calls, and a rewind is judged
// against the shard's own last tick.
package shardedgen
