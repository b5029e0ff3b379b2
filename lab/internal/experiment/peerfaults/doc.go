// Package peerfaults is loadgen peerfaults: the failures the peers' own
// trackers report, replayed side by side with snowlab under the same
// fault, every ID checked.
//
//   - bwmarrin-53: bwmarrin/snowflake PR #53, "clock rollback 5 ms,
//     duplicate ID count 149". bwmarrin/snowflake is a Go library the lab
//     measures, so it is run: v0.3.0 measures time on the monotonic clock
//     from NewNode, so a wall-clock step inside a running process never
//     reaches it (a comment on the PR says as much), and the rollback
//     reaches it through a restart. The library takes no clock, so the
//     restart is built with peers.BwmarrinBehind: NewNode with its Epoch
//     5 ms later, which mints what a NewNode on a clock 5 ms behind
//     mints (a test proves it). Beside it: the control, snowlab's
//     atomicgen on a node id named by hand with no lease, under the same
//     restart (it repeats the same IDs: the defence is not the generator
//     but the lease's floor); atomicgen/strict on a lock-folder lease,
//     restarted the same way; and atomicgen/strict with the clock stepped
//     back 5 ms and 20 ms inside the running process, which it does see
//     (waited out within MaxWait, refused with ErrClockBackwards beyond).
//   - leaf-216: Meituan-Dianping/Leaf #216. Leaf reports the time to
//     ZooKeeper every 3 s and checks it at start-up; a restart 2 s after a
//     report with the clock 1 s back passes the check and repeats a
//     second of IDs. Replayed on snowlab: a crash 2.5 s into a lease
//     (Window 3 s, refreshed every second), restart with the clock 1 s
//     behind the dead holder's, on a full fleet (it must come back to its
//     own node id and waits for the floor) and on the default layout
//     (it takes a free node id at once).
//   - yitter-110: yitter/IdGenerator #110. Worker ids registered in Redis
//     outlive their process, so a restart in a full registry is given
//     worker id 0, which a live container holds. Replayed on snowlab: a
//     holder on each of a fleet's eight node ids, one crashes and
//     restarts, a ninth asks for a node id (ErrNoFreeNode).
//   - baidu-85: baidu/uid-generator #85. CachedUidGenerator stamps future
//     seconds; restarted at once it takes worker id + 1 and its UIDs sort
//     below the last ones. Replayed on snowlab: a Monotonic generator
//     runs 4 ms ahead in one NextIDs call and restarts at once, on a node
//     id named by hand (StaticConfig), on a full fleet's lease and on a
//     lease with free node ids, where the restart takes another node id
//     and, order being promised per node id, its IDs sort by time below
//     the predecessor's.
//   - baidu-88: baidu/uid-generator PR #88, "Worker id 4194307 exceeds the
//     max 4194303": every start takes a new worker id. Replayed on
//     snowlab: a process restarted 100 times (-restarts) on eight node ids.
//
// Leaf, yitter/IdGenerator and baidu/uid-generator are not Go libraries the
// lab measures: their rows name the peer and say it was not run; no
// figure is claimed for them.
//
// Time. Every process reads a clock of its own (a clocksrc.Clock given to
// the generator's Config and the lease's Options): the scenario's true
// time plus a skew the scenario steps, so a fault moves a process's clock,
// never the machine's. The true time is the machine's in loadgen
// peerfaults, and a testing/synctest bubble's in the package's tests,
// where every wait (a pace, a floor, a rewind, a lease's refresh) takes
// exactly its length, so the tests hold every figure exactly and Leaf's
// seconds take none. bwmarrin/snowflake reads time.Now itself: in the
// bubble, the bubble's. Processes ask for IDs at a steady rate (-per-ms,
// one call per ID), so that every millisecond a rollback lands on was
// used. The stores are lock folders (nodeid.Dir) in a temporary folder,
// each claim wrapped so that a holder can crash: its lock is dropped and
// its last reservation stays, as a killed process leaves them.
//
// execute plays them and returns a Result: per subject the IDs, the
// duplicates, the order breaks (within a process; across a restart), how
// far the floor was ahead of the restart and how long it waited, the
// rewinds waited out and the calls refused by sentinel. The check: the
// peer and the control must repeat IDs (the replay reproduces the fault);
// a snowlab composition must repeat none and break no order it promises.
// writeFiles writes it as the lab's other experiments are written.
package peerfaults
