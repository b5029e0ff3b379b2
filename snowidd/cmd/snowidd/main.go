// Snowidd serves Snowflake-style IDs to a fleet in any language: gRPC,
// gRPC-Web and Connect JSON on one port, with readiness that fails while
// the replica cannot mint safely (no lease, a lost lease, a clock that
// moved backwards, draining) and Prometheus metrics.
//
//	snowidd -listen 127.0.0.1:8080 -lease etcd:127.0.0.1:2379/myapp
//	curl -H 'Content-Type: application/json' -d '{"count":3}' http://127.0.0.1:8080/snowlab.v1.IDService/NextIDs
//	{"ids":["…","…","…"]}
//
// Every flag can be set with a SNOWIDD_* variable (-lease: SNOWIDD_LEASE);
// snowidd -h lists them. On SIGTERM it stops taking calls (not ready,
// Unavailable), lets those in flight finish within -grace, releases its
// lease and exits 0.
//
// Unless GOGC is set, the collector runs at GOGC=400: a replica's live
// heap is a megabyte or two, so at the runtime's default it collects ten
// times a second under load, and with one P each cycle's mark work takes
// turns with the calls it overlaps, a tail of its own. Four times the
// live heap is still a few megabytes.
package main

import (
	"os"
	"runtime/debug"

	"github.com/snowlab/snowlab/snowidd/internal/daemon"
)

// gcPercent is GOGC unless the environment sets it.
const gcPercent = 400

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(daemon.Main())
}
