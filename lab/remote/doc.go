// Package remote puts a snowidd replica into the performance lab: a lab
// subject whose minter calls the service over the wire, one ID per call
// (NextID) or in batches (NextIDs), so that the lab's own loops and checks
// (uniqueness, order, the per-node ceiling) measure the service beside the
// in-process generators. It speaks gRPC (HTTP/2), gRPC-Web (HTTP/1.1, the
// status in a trailer frame at the end of the body), the Connect protocol
// with binary protobuf and the Connect protocol with JSON itself, in
// plaintext or over TLS (SubjectTLS, mutual TLS included), with the
// standard library only: the two messages it sends and the two it reads
// are a few bytes each, and hand-encoding them keeps the lab's module free
// of an RPC stack that a library user would otherwise have to resolve.
package remote
