// Package replica starts a snowidd binary as a local replica for the lab's
// runs and tests: on a free loopback port, with one static node id, ready
// once its /readyz answers 200, and stopped with SIGTERM, which drains it
// and must end in exit status 0. The lab runs the service only as a
// process and calls it over the wire (lab/internal/remote), so that what it
// measures is the binary as deployed, built apart by make snowidd, not a
// server linked into the load generator.
//
// Package replicatest starts one for a test, as httptest starts a server.
package replica
