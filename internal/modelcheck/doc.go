// Package modelcheck checks the lease-and-fence protocol of package nodeid
// exhaustively, within stated bounds: an explicit-state, breadth-first
// search over every state the protocol can reach, run by go test. It has
// no code outside its tests. It replaced a Quint model (model/README.md
// says why); this comment is the protocol's specification, and the tests'
// transitions are the protocol as the code has it.
//
// # The protocol
//
// Processes take node ids from a store (nodeid.Store.Acquire), reserve
// time ahead of their clock (Claim.Reserve), mint IDs inside the fence the
// reservation sets (snowlab.Fence, internal/engine) and release the node
// ids (Claim.Release). The store keeps, per node id, the token of its last
// claim (the fencing token), its holder, the hold's expiry on the store's
// clock and the reserved-until. It applies writes to a volatile copy and
// makes them durable later (Flush); a crash of the store loses what was
// not durable. Processes' clocks step back and forward and freeze;
// processes pause and crash; writes to the store are delayed, reordered
// and lost.
//
// Time is in ticks: tick t covers [t, t+1), so an ID of tick t ends at
// t+1. A process mints tick t only when t+1 is at most its fence's Until
// and t is after its generator's start: engine.InitialState spends every
// tick before the fence's LastEnd.
//
// # Steps
//
// Each step below is one transition; where the code does it:
//
//   - Tick: time passes on the store's clock; every clock that is not
//     frozen moves with it. (Quint's Jump, a TTL and more at once, is that
//     many Ticks.) clocksrc.Clock.
//   - ClockStep, ClockFreeze: a process's clock is stepped back or forward
//     (NTP, an operator), or stops. clocksrc.Clock.
//   - Pause, Crash: a process stops taking steps (GC, SIGSTOP, a VM
//     suspended), or dies and restarts with no memory.
//   - AcquireSend: Store.Acquire's transaction: a run of Count free node
//     ids (or, untimed, any run: see Expiry) gets a new token, one more
//     than the largest over the run, the holder and an expiry on the
//     store's clock; the previous reserved-until, the largest over the
//     run, is read as the claim's Floor. nodeid.Store, the stores'
//     Acquire (pglease, etcdlease, nodeid.Dir).
//   - AcquireAck, AcquireTimeout: the answer, once the claim is durable,
//     or none: the claim, if written, is left to expire.
//   - ReserveSend: the first reservation in nodeid.Acquire asks for
//     max(clock, floor) + Window; each of the refresher's (Lease.refresh)
//     for clock + Window. ClaimState.Reserve writes that or the highest
//     value already made durable, whichever is later.
//   - ReserveApply, Drop: the write reaches the store, a guarded write
//     that changes nothing unless every node id still carries the claim's
//     token and holder and its hold has not expired, and that only moves
//     reserved-until forward (ClaimState.Reserve; pglease's reserve with
//     GREATEST; etcdlease's claim.Reserve); or it is lost on the way.
//   - ReserveAck: the store answers that the value is durable: the fence
//     moves to the reservation asked for (Fence.Extend), or, after
//     Acquire's first, the lease and its fence are made with it (and,
//     unless the bounds build generators one by one, a generator on each
//     node id of the claim).
//   - ReserveTimeout: no answer in time. The refresher leaves the fence
//     where it is: minting goes on to the last durable reservation, then
//     stops. Acquire's first releases the claim with its floor and fails.
//   - Lost: the store says the claim is gone: the fence is revoked
//     (Lease.markLost, Fence.Revoke).
//   - Renew: the store renews the hold on its clock (etcd's keep-alive,
//     pglease's renew).
//   - Build: a generator is built on a node id of the lease
//     (Lease.Config, engine.Prepare): its grant stops every live generator
//     on that node id (Fence.Grant), and it starts after the fence's
//     LastEnd.
//   - Mint: a generator hands out an ID (internal/engine's plan): a Strict
//     one the clock's tick with sequence 0, or the same tick's next
//     sequence; a Monotonic one the next free (tick, sequence) at or after
//     its clock's tick, at most MaxLead ticks ahead. Never a tick that
//     ends after the fence's Until. Grant.Use records the tick's end
//     (LastEnd) before the ID is handed out.
//   - Release: Lease.Release: the fence is revoked and LastEnd (at least
//     the floor) is stored as the final reserved-until in a guarded write
//     that frees the node ids.
//   - Flush, StoreCrash: the store makes a node id's record durable
//     (PostgreSQL's WAL flush); a crash loses every write not yet durable.
//
// # Invariants
//
//   - noDuplicate: no two IDs share a (node id, tick, sequence).
//   - withinDurable: every ID's tick ends at or before the store's durable
//     reserved-until of its node id when it is minted.
//   - successorPastPredecessors: every ID of a claim is at or after what
//     every earlier claim (in the order claims were acknowledged) on its
//     node id was ever allowed to mint to: its fence, or, once released,
//     the LastEnd it stored.
//
// The search checks them on every step that could break them (a Mint,
// and a reservation's answer that lets an earlier claim mint further),
// from a history kept in the state: the IDs minted in the ticks a clock
// can still reach, and per claim its bound and the bounds and IDs of the
// claims around it (model_test.go, proc).
//
// # Bounds and reductions
//
// A search is complete when no step leads to a state not yet seen: every
// state within the bounds was checked. TestExhaustive prints each search's
// bounds, its distinct states and "complete". The bounds (bounds in
// model_test.go): how many processes and node ids; claim sizes; the
// window; the clocks within ±K ticks of the store's, stepped by 1..S
// ticks; IDs per tick; generators; the policy and MaxLead; reservation
// writes in flight per process; how far ahead of the store's clock a
// reservation may reach (successors that each crash with their clocks
// behind their floor push it further, without end); tokens within a
// spread. Each state is kept once up to the reductions normalize (in
// norm_test.go) describes: times relative to the store's clock, the past
// that no clock reaches again forgotten, tokens relative to the lowest
// durable one, processes renamed. TestReductionsExact checks that they are
// exact: a search without them, step by step, reaches the same states.
//
// Three faults are not searched, because they add no state: a pause is
// every run in which the process takes no step, and the search has them
// all; a frozen clock is a clock stepped back a tick at each Tick
// (TestPauseAndFreezeAddNoState compares searches with and without them).
// And a process's clock is not kept while it holds no acknowledged claim:
// nothing reads it then, and when its claim is acknowledged it takes each
// value within ±K, as steps would have made it.
//
// # Expiry
//
// Timed, as in lease.qnt, the store grants a hold a TTL on its own clock
// and renews it (Renew). Untimed, the store may find any hold expired
// whenever it is asked: an Acquire may take any run, and a Release's
// guarded write may be refused.
// That is every TTL and every renewal schedule at once, and it needs no
// expiry in the state; TestUntimedExpiryCoversTimed checks, at small
// bounds, that every state of the timed search is a state of the untimed
// one. Safety must not depend on the TTL (a holder's process can always
// be paused past it), and the untimed searches show it does not.
//
// # Mutants
//
// TestExhaustiveMutants puts back one bug at a time and requires the
// search to find a run that breaks an invariant, and prints the shortest
// (breadth first, no shorter run breaks one). Three come from the Quint
// model: a generator's start one tick inside the fence (offbyone), claims
// and reservations acknowledged before they are durable (undurable), and a
// holder minting while its lease has not expired by its own clock instead
// of within its durable reservation (holderexpiry). Three are internal/sim's
// store mutants: reservations acknowledged before they are durable
// (async-commit), a range's floor read from its first node id only
// (floor-first-id), and the floor reported one tick inside the
// reservation (floor-one-tick-inside). Three cover what lease.qnt left
// out: a new generator that does not stop the older one on its node id
// (grant-keeps-older) or starts after the floor instead of the fence's
// LastEnd (start-at-floor), and a Grant.Use that records the clock's tick
// instead of the tick minted, which only a Monotonic generator's lead
// exposes (use-clock).
package modelcheck
