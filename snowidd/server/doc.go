// Package server is snowidd's request handling: the snowlab.v1.IDService
// methods over one http.Handler that answers gRPC, gRPC-Web and the
// Connect protocol (JSON or binary) on one port, with the health endpoints
// a load balancer reads and the metrics an operator scrapes.
//
// The idea is that a replica which cannot mint safely says so before a
// caller asks: it reports not ready (GET /readyz, grpc.health.v1) while it
// holds no lease, after its lease was lost or its reservation ran out,
// while its clock is outside the layout's window (before the epoch, past
// the horizon: every call would fail), for a while after its clock moved
// backwards, and while it drains, so that traffic goes to the other
// replicas; Server.WatchReady reports each change, for the log. Liveness (GET /healthz) never
// fails for those reasons: restarting a replica whose clock is behind is
// how other ID services re-issue IDs. A request the replica refuses gets a
// status code the caller can act on (Unavailable: try another replica;
// InvalidArgument: fix the request; FailedPrecondition: the layout's time
// window is spent) and no ID: a NextIDs call is all or nothing.
//
// Serve the Handler with NewHTTPServer on Server.Listener, both within
// the same Limits: the listener holds at most Limits.MaxConns connections
// and writes each through NewListener's coalescing (Go's HTTP/2 server
// writes each frame of a unary gRPC answer in a system call of its own,
// and the listener's connections gather what the calls finished meanwhile
// into one write: an unbatched call went from 70-105 µs of server CPU to
// about 40), with TLS over it when given a TLSReloader's Config (mutual
// TLS with a client CA; certificate, key and CA read again when they
// change). The Limits bound what one slow or hostile client holds:
// request headers, bodies, idle connections, HTTP/2 streams.
//
// The Server does not choose its node ids: the snowidd command acquires a
// lease, builds a generator on it and hands both to Server.Use, and takes
// them away with Server.Unuse when the lease is lost.
package server
