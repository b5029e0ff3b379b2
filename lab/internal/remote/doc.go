// Package remote puts a snowidd replica into the performance lab: a lab
// subject whose minter calls the service over the wire through
// snowidd/client, one ID per call (NextID) or in batches (NextIDs), so
// that the lab's own loops and checks (uniqueness, order, the per-node
// ceiling) measure the service beside the in-process generators, and a
// Client that calls one replica call by call for the fault lab. Every
// protocol the replica serves is spoken (client.Protocols), in plaintext
// or over TLS (mutual TLS included).
//
// The lab measures the server, so the client side is shaped not to cap
// it: each caller goroutine keeps a batch of its own, connections write
// through client.NewConn (one system call for what every caller queued),
// and gRPC-Web goes over HTTP/1.1, one connection per call in flight, as a
// browser's client sends it.
//
// StartReplica starts a snowidd binary as a local replica for the lab's
// runs and tests: on a free loopback port, with one static node id, ready
// once its /readyz answers 200, and stopped with SIGTERM, which drains it
// and must end in exit status 0. The lab runs the service only as a
// process and calls it over the wire, so that what it measures is the
// binary as deployed, built apart by make snowidd, not a server linked
// into the load generator.
package remote
