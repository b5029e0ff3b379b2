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
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/snowlab/snowlab/snowidd/internal/daemon"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := daemon.Main(ctx)
	stop()
	os.Exit(code)
}
