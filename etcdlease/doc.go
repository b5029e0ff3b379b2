// Package etcdlease is a nodeid.Store on an etcd cluster: processes on many
// hosts take node ids from one etcd, and a node id taken over from a
// crashed, frozen or partitioned holder is never used for time that holder
// may still have used. It is a module of its own
// (github.com/snowlab/snowlab/etcdlease), so that the snowlab library does
// not depend on the etcd client.
//
//	store, closeStore, err := etcdlease.Dial([]string{"http://10.0.0.1:2379"}, "/myservice/snowlab", 10*time.Second)
//	...
//	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{})
//	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
//	...
//	defer closeStore()
//	defer lease.Release(context.Background())
//
// # Keys
//
// Under the prefix given to New, for each node id N:
//
//   - <prefix>/nodes/N: present while N is held. Its value names the holder
//     (etcd lease, pid, host) for people; what matters is that it is
//     attached to the holder's etcd lease, so it disappears when the lease
//     expires or is revoked.
//   - <prefix>/reserved/N: the reserved-until time R of N, in Unix
//     nanoseconds as a decimal string. It is not attached to any lease: it
//     must outlive its holder, since it is what the next holder waits for.
//
// And once for the prefix, <prefix>/layout: the layout its node ids are
// held under (snowlab.Layout's text form, 41/10/12,1ms,2024-01-01T00:00:00Z
// for the default). The first Acquire puts it, in a transaction
// conditional on the key never having been created, and every Acquire
// compares its own layout with it first: another is nodeid.ErrLayout,
// and nothing is taken.
//
// # Acquire: a TTL lease and one transaction
//
// Acquire grants an etcd lease of the store's TTL (at least 2 s: etcd does
// not expire a lease sooner than 1.5 election timeouts, 2 s with its
// default timing). For a candidate range of count consecutive ids (the
// lowest free one, skipping those a listing shows held; AcquireAt, the
// nodeid.Preferrer a StatefulSet ordinal uses, tries a given free range
// first) it runs one transaction:
//
//	If   CreateRevision(<prefix>/nodes/N) == 0        for every N in the range
//	Then Put <prefix>/nodes/N (attached to the lease)  for every N
//	     Get <prefix>/reserved/N                       for every N
//	Else Get <prefix>/nodes/N                          (which ones are held)
//
// Either the whole range becomes this holder's, together with the
// predecessors' reservations as they stood at that instant, or nothing is
// written and another range is tried: after the k-th such conflict, one
// picked at random among the lowest 2^k free ones. A holder alone takes
// the lowest free ids; a fleet starting at once spreads out in a few tries
// each, where every holder trying the next id up would make a transaction
// per id taken before it (half a million for 1,024 holders). The etcd
// lease is kept alive while the tries last. The claim's Floor is the latest of
// those reserved-until values: nodeid hands it to the generators, which
// wait for the clock to pass it (or refuse, past Config.MaxFloorWait). When
// no range is free, Acquire fails with nodeid.ErrNoFreeNode. A claim holds at
// most MaxCount (64) ids: two operations per id must fit etcd's
// --max-txn-ops (128).
//
// # Fencing by create revision
//
// The node keys are created by one transaction, so they share its revision:
// that create revision is the claim's fencing Token. It grows with every
// new holder of an id, and every later write of the claim is a transaction
// guarded by it:
//
//	If   CreateRevision(<prefix>/nodes/N) == token     for every N held
//	Then Put <prefix>/reserved/N = until               (Reserve)
//	     Put <prefix>/reserved/N = until, Delete nodes/N (Release)
//
// If the lease expired and the key is gone, or another holder created it
// again, the guard fails and the write does not happen: a zombie cannot
// move a reservation that a successor has already read. Reserve then fails
// with an error wrapping nodeid.ErrLost, and the nodeid.Lease revokes its
// fence, so its generators stop at once. Reserve only moves R forward;
// Release stores the end of the last tick actually used (never below the
// claim's floor), so that a successor after a clean hand-over waits only
// for time really spent, then deletes the node keys and revokes the lease.
//
// # Durability
//
// etcd answers a transaction that writes (a claim, Reserve, Release) only
// once it is committed: in the raft log, fsynced to the WAL of a majority
// of the members. So Reserve returns only once R survives a crash of every
// member and the loss of a minority of them, whatever the client's
// settings; an etcd run with --unsafe-no-fsync breaks this promise.
//
// # Why a closed keep-alive channel is not the loss signal
//
// The lease is kept alive with the client's KeepAlive. Its channel closes
// when the server answers that the lease is gone, but the client also
// closes it on its own when it has had no answer for a whole TTL: etcd is
// down, or this host is cut off from it. That says nothing about the lease:
// etcd renews every lease for a full TTL when a leader takes over (a
// restart of a single member included), so after an outage the lease and
// the node keys are usually still there and the holder can go on. Treating
// the closed channel as a loss would turn every etcd restart into a lost
// node id. It also works the other way: the channel may close only after
// the server has already expired the lease and a successor has taken the
// id, so it is no timely signal either.
//
// So a claim reports loss (closes Lost) only on evidence from the server:
//
//   - a watch on each node key, from the revision after the token, sees it
//     deleted (lease expired or revoked, or removed by hand) or created
//     again with another create revision; after a compaction that cut the
//     watch's history, the key is read again;
//   - a Reserve or Release transaction fails its guard;
//   - when the keep-alive channel closes, TimeToLive is asked until it
//     answers: a lease that no longer exists is lost; a live one gets a new
//     KeepAlive; errors are retried.
//
// None of this is what keeps IDs unique: a holder that never learns of its
// loss (frozen, or cut off) still mints only up to its last durable R, and
// its successor starts after R. Detection only makes the loss visible
// sooner (Lease.Lost, Lease.Err) and stops a zombie that resumes before R.
//
// # When etcd is unreachable
//
// Acquire asks etcd for its status before it grants anything: when no
// endpoint answers it fails with ErrUnreachable, naming the endpoints, at
// once when nothing listens on them and within ReachTimeout otherwise, even
// under a long context (the client would otherwise retry until the context
// ends and say only "context deadline exceeded"). The same store works once
// etcd is up: a caller that must wait for it retries Acquire.
//
// Reserve returns the plain error (a timeout, an unavailable cluster), not
// ErrLost. The nodeid.Lease keeps its fence where it is: generators go on
// minting until the last reservation that was stored, at most
// Options.Window ahead, and then fail with snowlab.ErrNoReservation. Nothing
// is minted past a reservation that etcd may not have. When etcd is
// reachable again the next refresh stores a new R (the lease is still the
// same one, renewed by etcd) and minting resumes. If instead the lease
// expired meanwhile, the watch or the failed guard reports the loss and
// the holder must Acquire again: its successor, if any, waits for R.
//
// # A secured etcd
//
// DialWith and OpenerWith take Credentials: a tls.Config (the CA that
// signed etcd's certificate, a client certificate for an etcd run with
// --client-cert-auth) and a user and password for etcd's auth. Flags adds
// them to a command line as etcdctl names them (-etcd-cacert, -etcd-cert,
// -etcd-key, -etcd-user, -etcd-password-file; the password also from a
// variable the command names, never from the command line). The password
// is in no error, and a Credentials value prints without it. etcd refusing
// the credentials or the user's permissions is ErrAuth, which a retry does
// not cure; a TLS handshake that fails is ErrUnreachable, naming the
// handshake's error.
//
// Choose TTL and Window together: a crashed holder blocks its ids for TTL,
// then its successor waits up to Window for the clock; a holder cut off from
// etcd mints for at most Window. The client should reconnect quickly after
// an outage: Dial caps gRPC's reconnect backoff at 1 s (DialOptions), which
// a client built by hand for New should add as well.
package etcdlease
