// Package replica starts a snowidd binary as a local replica for the lab's
// runs and tests: on a free loopback port, with one static node id, ready
// once its /readyz answers 200, and stopped with SIGTERM, which drains it
// and must end in exit status 0. The lab reaches the service only as a
// process and over the wire (lab/remote), never by importing the snowidd
// module, so that the root module's go.mod never gains the server's
// dependencies: the binary is built apart, by make snowidd.
//
// Package replicatest starts one for a test, as httptest starts a server.
package replica
