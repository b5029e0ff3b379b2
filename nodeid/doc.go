// Package nodeid answers "who am I": it hands a process the node id (or a
// contiguous range of them, one per shard) that its generators put in every
// ID, and keeps the reservation that makes restarts and paused processes
// safe.
//
// Snowflake IDs are unique only while each node id has one living holder
// and no holder reuses time a predecessor already spent. Duplicates in
// production come from the first assumption breaking far more than from
// clocks: a cloned config, old and new pods alive together in a rolling
// update, a process frozen by a GC pause or a VM suspend whose lease
// expired while a successor took its node id, a restart whose clock is behind
// the last ID it issued.
//
// A Lease holds node ids from a Store (a lock directory on one host with
// Dir, or etcd with the nested etcdlease module) together with a
// reserved-until time kept in that store: generators stamp only timestamps
// before it (through the lease's snowlab.Fence), it is made durable before
// any ID uses it, and a background refresher moves it ahead by
// Options.Window. A successor starts only once its clock has passed its
// predecessor's reserved-until (the claim's Floor), and a holder that loses
// its store stops at its own instead of minting into time a successor may
// use. The root package's doc holds the glossary of these words.
//
// Static, FromEnv and Ordinal name ids without a store: they check the
// range and nothing else, and say so. StaticConfig gives a generator on
// such ids a fence with no store behind it: it starts past every tick a
// previous process on the ids can have stamped, given its MaxLead, so a
// restart never repeats IDs (Monotonic must bound its lead for that).
package nodeid
