// Package zklease is a nodeid.Store on ZooKeeper: processes on many hosts
// take node ids from one ensemble, and a node id taken over from a holder
// whose session ended is never used for time that holder may have used.
// It is a module of its own (github.com/snowlab/snowlab/zklease), so that
// the snowlab library does not depend on the ZooKeeper client
// (github.com/go-zookeeper/zk).
//
//	store, err := zklease.New([]string{"10.0.0.1:2181", "10.0.0.2:2181"}, "/myservice/snowlab", 10*time.Second)
//	...
//	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{})
//	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
//	...
//	defer store.Close()
//	defer lease.Release(context.Background())
//
// # Znodes
//
// Under the root path given to New, for each node id N:
//
//   - ROOT/claims/N: EPHEMERAL, present while N is held, owned by the
//     holder's session (its data names the session, pid and host for
//     people, and the claim's multi-op by a random mark). ZooKeeper deletes it the moment the session ends: closed,
//     or expired because the holder was silent for the session timeout.
//   - ROOT/reserved/N: PERSISTENT, {"reservedUntil": R, "generation": G}:
//     the reserved-until of N in Unix nanoseconds and the token of its
//     latest holder. It outlives every holder. Data in any other form (a
//     field missing or added, another version's record, a hand edit) is
//     ErrCorrupt, an error naming N and the znode: it is never read as a
//     reserved-until of 0, and never overwritten.
//
// And once for the root, ROOT/layout: PERSISTENT, the layout its node ids
// are held under (snowlab.Layout's text form,
// 41/10/12,1ms,2024-01-01T00:00:00Z for the default). The first Acquire
// creates it (a create fails when the znode exists, so of two first
// holders only one makes it), and every Acquire compares its own layout
// with it first: another is nodeid.ErrLayout, and nothing is taken.
//
// The ephemeral znode alone is the trap the design describes: the holder
// dies, its znode goes, a new process takes N with a clock behind the
// dead one's last ID, and mints it again. The persistent reservation is
// what prevents that: the new holder's Floor is R, and its generators wait
// for the clock to pass it (TestEphemeralTrap).
//
// # Acquire: one multi-op
//
// For a candidate range (the lowest free one; after the k-th conflict one
// at random among the lowest 2^k) Acquire reads each ROOT/reserved/N with
// its version, then runs one multi-op: create every ROOT/claims/N
// (ephemeral) and set every ROOT/reserved/N to the same R with the new
// generation, conditional on the version read (or create it). Either all
// of it happens or nothing: a claim znode that exists, or a reservation
// written meanwhile, fails it and another range is tried. The claim's
// Token is one above the highest generation found, so it grows with every
// holder of each id; its Floor is the latest R found.
//
// # Fencing by version
//
// Reserve and Release are multi-ops too: for every id, a check that
// ROOT/claims/N exists and a set of ROOT/reserved/N conditional on the
// version this claim last wrote (Release adds the deletes). A later holder
// has written its generation there, changing the version, and a holder
// whose session expired has lost its claim znodes; either way the
// multi-op writes nothing. When a condition fails, the claim reads the
// znodes again: a write of its own whose answer was lost moved the
// version, which the read shows (the generation is still its token, the
// claim znode still its session's) and the write is retried; otherwise
// Reserve fails with an error wrapping nodeid.ErrLost, and the nodeid.Lease
// revokes its fence.
//
// # Loss
//
// Lost closes on evidence: the session expired (the client says so when
// it reconnects) or was replaced, a watch sees a claim znode deleted or
// owned by another session, or a guarded write failed as above. A
// dropped connection is no loss: the client reconnects in the same
// session while the server keeps it (the session timeout), and the store
// makes a call the connection took with it again once it has, for as
// long as the call's context lasts; for a write whose answer was lost it
// reads first whether it happened (a claim's znodes hold a mark of their
// multi-op's own; a release left its claim znodes gone and its record
// one version on). TestConnectionDropped drops the connection under each
// call. A holder cut off from ZooKeeper does not know yet: its writes
// fail when their context ends, with the connection's error, not
// ErrLost, and its generators mint only up to the last reservation
// stored (at most nodeid.Options.Window ahead). None of this is what
// keeps IDs unique: a successor starts after R whatever the old holder
// knows.
//
// ZooKeeper answers a write only once a quorum has logged it (fsynced
// unless forceSync=no), so R survives the loss of a minority of servers.
// In a leader change ZooKeeper keeps sessions that reconnect within their
// timeout (and so their claims); a session that expires meanwhile loses
// them, which the claim reports as above. TestLeaderChange kills the
// leader of a 3-server ensemble under six holders (a 2 s session; the
// election took about 1 s there, and every holder kept its claim), and
// TestSessionExpiry cuts a holder off until its session expires.
//
// # Reaching a server
//
// A store lists one or more servers; the client tries them in a shuffled
// order. Each attempt on one server, from the dial to the server's answer
// to the connect request, is bounded by the reach timeout (ReachTimeout,
// 5 s) and the session timeout, each shared among the listed servers
// (1.67 s for three servers and a 10 s session), so that a server that
// accepts connections and never answers (a hung JVM, a forward to a dead
// one) costs one share, and a healthy server listed beside it is reached
// within ReachTimeout. go-zookeeper alone waits ten times its read
// timeout for that answer, 66.7 s for a 10 s session. TestOneServer lists
// two such servers before a healthy one.
//
// A root path ZooKeeper refuses (an empty, "." or ".." component; a
// control character; a character the client or the server refuses, see
// checkPath) is an invalid spec at start, never a store that seems down.
//
// # Choosing the session timeout
//
// The session timeout is how long a crashed or cut-off holder keeps its
// ids from others; the server grants 2..20 ticks (4 s..40 s with the
// default tickTime). The store takes no credentials: digest or SASL auth
// and TLS are not supported, and a server given as user:password@host is
// refused without being echoed.
package zklease
