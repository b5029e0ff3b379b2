// Package k8slease is a nodeid.Store on Kubernetes Lease objects
// (coordination.k8s.io/v1), which every cluster serves: pods take node
// ids from the API server they already talk to, and a node id taken over
// from a crashed, frozen or partitioned holder is never used for time
// that holder may still have used. It is a module of its own
// (github.com/snowlab/snowlab/k8slease), so that client-go enters neither
// the snowlab library nor another store's module.
//
//	store, err := k8slease.Dial("", "default", "snowidd", 15*time.Second)
//	...
//	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{})
//	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
//	...
//	defer store.Close()
//	defer lease.Release(context.Background())
//
// # Objects
//
// One Lease per node id N, named PREFIX-N in the store's namespace and
// labelled snowlab.io/pool=PREFIX:
//
//   - spec.holderIdentity: the holder (host, pid, a random tag), empty
//     once released; spec.leaseDurationSeconds the store's TTL;
//     spec.renewTime moved on every write of the holder;
//     spec.leaseTransitions counts holders, for people.
//   - annotation snowlab.io/reserved-until: N's reserved-until, Unix
//     nanoseconds. It outlives its holder: it is what the next holder
//     waits for. Do not delete the Leases: a Lease created afresh has no
//     reservation, and its first holder would not wait for the last one's.
//   - annotation snowlab.io/token: the fencing token of N's latest holder.
//
// And one Lease for the pool, PREFIX-layout, labelled alike: its
// annotation snowlab.io/layout is the layout the pool's node ids are held
// under (snowlab.Layout's text form, 41/10/12,1ms,2024-01-01T00:00:00Z
// for the default). The first Acquire creates it (a second create is 409
// Conflict, so of two first holders only one makes it) and every Acquire
// compares its own layout with it first: another is nodeid.ErrLayout,
// and nothing is taken.
//
// A Lease of the pool whose annotations are not in that form (no token,
// a value that is not a decimal number, a negative token) is ErrCorrupt,
// an error naming it: never read as a reserved-until of 0, nor taken and
// written over.
//
// # Claims are compare-and-swap on resourceVersion
//
// Acquire lists the store's Leases and picks the lowest run of count ids
// each free: no Lease, a released one, or one expired (below). It takes
// each Lease of the run by a create, or an update at the resourceVersion
// it listed; the API server refuses either with 409 Conflict when
// another holder wrote first, and the ids already taken are given back
// and another run is tried (after the k-th conflict, one at random among
// the lowest 2^k free ones, as etcdlease does). There is no transaction
// over several objects, so a claim of several ids is taken id by id; a
// holder that dies half-way leaves its part to expire. The claim's Floor
// is the latest reserved-until over the run, and its Token one more than
// the largest token over it, written on every Lease of the run: it grows
// with each holder of every id.
//
// Every later write (Reserve, the renewals, Release) first reads all the
// claim's Leases and goes on only if each still names this holder and
// token, then updates each at the version read. A zombie, whose ids were
// taken over (all or only some), writes nothing on any of them, and learns
// it: the error wraps nodeid.ErrLost and Lost closes.
//
// # Expiry as the Lease API defines it
//
// The API server never expires a Lease: leaseDurationSeconds is "a
// duration that candidates for a lease need to wait to force acquire it
// ... measured against the time of last observed renewTime". So a Lease is
// expired when the claimant has seen it unchanged for its
// leaseDurationSeconds on the claimant's own monotonic clock, counted from
// when the claimant observed its current resourceVersion (any write of
// the holder changes it, with renewTime). The renewTime written in the
// object is the holder's wall clock, and is not used: a holder whose clock
// runs behind would otherwise seem expired, and one ahead would seem alive
// forever. To have observed the renewals, a Store watches its Leases from
// the moment New makes it; a Lease it first sees at Acquire counts as
// renewed then, and is held for a whole duration from then. A claim
// renews its Leases every third of the duration unless a Reserve did.
//
// Expiry is not what keeps IDs unique: the fence is. A holder cut off from
// the API server mints only up to its last stored reserved-until (at most
// nodeid.Options.Window ahead) and then stops; its successor's Floor is that
// reserved-until, so it starts after it, whatever the two clocks say.
// Reserve returns the plain error (a timeout, the server unreachable), not
// ErrLost: the lease keeps its fence and resumes when the server answers.
// A TTL (the lease duration) shorter than the Window only lets a successor
// claim sooner, and then wait for the clock.
//
// # Configuration and RBAC
//
// RestConfig (used by Dial and Opener) takes a kubeconfig file when one is
// named, else the pod's service account (in-cluster), else $KUBECONFIG,
// else ~/.kube/config. "k8s:NAMESPACE/PREFIX" is the lease spec
// (nodeid.OpenStore with Opener). The service account needs get, list,
// watch, create and update on leases in the namespace: rbac.yaml in this
// module is the Role and RoleBinding (watch is optional: without it
// take-overs only come later, see above).
package k8slease
