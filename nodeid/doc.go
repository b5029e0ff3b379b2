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
// A Lease holds node ids from a Store (a lock folder on one host with
// Dir; etcd, PostgreSQL, Kubernetes or ZooKeeper with the nested
// etcdlease, pglease, k8slease and zklease modules) together with a
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
// such ids a fence with no store behind it. With no store, nothing tells a
// restart how far ahead of the clock its predecessor ran, so the bound is
// one constant, StaticMaxLead (100 ms): no generator on a static id leads
// the clock by more (a Monotonic MaxLead above it is refused), and every
// start begins past it, whatever its predecessor's Policy and MaxLead and
// its own. A Strict restart waits 100 ms and a tick for that; a Monotonic
// one starts 100 ms ahead and mints at the clock's pace until it catches
// up. A restart therefore never repeats IDs, unless the clock was stepped
// back in between.
//
// # Where a node id comes from
//
//   - Static(n, layout) and FromEnv("NODE_ID", layout): the id is in range,
//     nothing else; for ids assigned by hand or by a deployment system that
//     guarantees one holder each (build with StaticConfig so that a restart
//     does not repeat IDs).
//   - Ordinal(hostname, offset, layout): the StatefulSet ordinal of a
//     name-N hostname (or $POD_INDEX from the pod-index label). Not a lease:
//     after a forced delete two pods can share an ordinal.
//   - Acquire with Dir(path): one lock file per id, held with flock (with
//     LockFileEx on Windows), plus a reservation file; several processes on
//     one host, nothing to install.
//   - Acquire with the etcdlease module's store: a fleet, with a TTL lease
//     in etcd; with the pglease module's store, a fleet that already runs
//     PostgreSQL; with k8slease's, a fleet on Kubernetes (Lease objects);
//     with zklease's, a fleet that already runs ZooKeeper (an ephemeral
//     znode per claim). Those modules keep the etcd client, pgx,
//     client-go and the ZooKeeper client out of the library.
//
// OpenStore reads a lease spec (dir:PATH, and etcd:, pg:, k8s: or zk:
// given the openers of those modules: snowidd/leasespec has them all); a
// spec that can never work is ErrInvalidSpec.
//
// # The reservation
//
// Generators built with Lease.Config stamp only times before the lease's
// reserved-until R (snowlab.Fence, one atomic read per call); R is made
// durable before any ID uses it, and a background refresher keeps it
// Options.Window (default 3 s) ahead. A new holder waits until its clock
// passes its predecessor's R (snowlab.Config.MaxFloorWait, default 10 s,
// bounds the wait). Release stores the end of the last tick actually used,
// so a graceful successor barely waits, and a holder that minted nothing
// leaves R where it found it. Given the choice, Acquire passes over an id
// whose R is still ahead of its clock (a holder that crashed a moment ago)
// and takes one it can use at once.
//
// The fence also carries the ids the lease holds, and generators are held
// to them: a generator that would mint on an id the lease does not hold is
// refused with snowlab.ErrInvalidNode (a node-per-shard shardedgen needs
// Options.Count of its shards); each generator built from Lease.Config
// starts after every tick an earlier one on the same lease used; and
// building a generator stops any earlier live one on the same ids (its
// calls then fail with snowlab.ErrNoReservation, "a newer generator took
// node id N"). Bad options are refused when the lease is taken, with
// snowlab.ErrInvalidConfig: a Window under MinWindow (10 ms), or a Refresh
// longer than half the Window.
//
// # When a lease is lost
//
// A Dir lease is never lost while its process lives (the kernel holds the
// lock). An etcd, PostgreSQL, Kubernetes or ZooKeeper lease is lost when
// the holder cannot keep it alive for a TTL (ZooKeeper's session timeout:
// the store unreachable, the process frozen): Lease.Lost is closed,
// Lease.Err says why (ErrLost, and the store's reason), and the
// generators built with Lease.Config stop. Before that, a holder cut off from its store keeps
// minting up to R and then every call fails with snowlab.ErrNoReservation;
// if the store comes back in time the lease refreshes and minting resumes
// by itself. Either way no ID past R is minted. What to do: on
// ErrNoReservation retry later or fail the request; on Lost, stop using the
// generator, call Lease.Release (safe on a lost lease: its writes are
// fenced, so it changes nothing of the new holder's and returns the loss as
// its error), then Acquire a new lease and build a new generator from it.
//
// # A Store of your own
//
// A Store of your own (Consul, a cloud database, a lock service) proves
// itself with package storetest (as testing/fstest), which every store here passes
// and which fails a store broken in each way it checks: claims raced
// through two clients, ranges judged by every id, tokens, reservations
// outliving a crashed holder, expiry, zombies refused, restarts. What a
// store must do beyond handing out ids:
//
//   - Record the layout: the first Acquire records its layout for the
//     whole store, created only where none exists, and every Acquire with
//     another fails with ErrLayout (see Store). Not per id: node 0 of
//     41/8/14 mints the IDs of nodes 0..3 of 41/10/12 without touching
//     them. The suite's Layout and LayoutRace cases check it.
//   - Acknowledge a write only once the backend has made it durable: a
//     Reserve acknowledged earlier is lost in a crash, and the successor
//     starts from an older floor (pglease asks every transaction for
//     synchronous commit, whatever the server's default). The Durable
//     case checks it where the backend can be made to lose unflushed
//     writes (storetest.Config.Lose).
//   - Guard every write (Reserve, Release) on what the claim itself
//     wrote (its token, its keys' create revision, its znodes' version),
//     never on the ids being held by someone: the Stolen case takes a
//     holder's ids behind its back (storetest.Config.Steal) and requires
//     the old holder's writes refused after a successor's.
//   - Refuse a record it cannot read (another version's, a hand edit)
//     with an error naming the id and where it is: never read it as a
//     reservation of 0, never overwrite it.
//
// storetest.CatchMutants runs the suite on a store with a bug planted,
// in a child process, and requires the case that checks it to fail: each
// store module here ships its mutants so (a commit left asynchronous, a
// guard that holds for any holder).
//
// # Simulation
//
// internal/sim runs this package's Acquire and ClaimState, the fence and
// the three generators against a store in memory inside a testing/synctest
// bubble (virtual time), on schedules drawn from a seed: 3 to 5 holders
// with ranges of 1 or 2 of 4 or 8 node ids, network delays, lost replies,
// store crashes that lose unflushed writes, partitions, process crashes
// and pauses (struck between a clock read and its use), and each holder's
// clock stepped back and forward and frozen. The generators wait (a spent
// tick, a rewind within MaxWait, a floor within MaxFloorWait) on the
// bubble's virtual time, with bounds drawn from the seed. Every ID is
// checked: unique fleet-wide, increasing per node id within a claim and
// across hand-offs, within the claim's durable reservation and past its
// true floor; every refusal must have its designed reason. make test runs
// 1,000 schedules (about 90 a second), 50 under the race detector, and
// requires 100 to replay to the same trace; make sim runs a million. A
// failure prints its replay command, go test ./internal/sim -run
// TestSimulation -sim.seed S -v. It found that a generator's constructor
// that refused still stopped the generator it was to replace, and that a
// revoked generator with its tick used up waited and then blamed the
// clock; both are fixed. Put back as store mutants, an
// asynchronously committed reservation, a range floor from its first id
// and a floor one tick inside the reservation each produce duplicates.
package nodeid
