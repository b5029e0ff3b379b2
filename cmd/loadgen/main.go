// Command loadgen is snowlab's performance lab.
//
// With no arguments it runs the standard suite (about a minute on two
// cores, a strict peer far below its ceiling asked for what it serves in
// 500 ms: -ceiling-budget): a 100,000-ID fan-out burst, a saturate sweep over goroutine
// counts and an open-loop steady run, against snowlab's generators (mutex
// baseline, lock-free, sharded; both policies), the physical limits they
// are read against (limit/clock+cas: a clock read and one compare-and-swap
// on a shared word; limit/per-p: the same on the calling P's word) and the
// Go ID libraries people use today, all in one process on one host; -gomaxprocs N
// runs it on N cores. It prints a table,
// and writes results/local/<date>-<host>-<sha>.json, a Markdown summary
// and a self-contained HTML page (.html) beside it, SVG charts under
// results/local/<date>-<host>-<sha>/, and refreshes results/local/index.html,
// the history of the published runs and its own. Git ignores results/local/,
// so a run never dirties the checkout; loadgen publish is the deliberate
// step that copies one into results/ to be committed.
//
// Usage:
//
//	loadgen [run] [flags]          run the suite (flags: loadgen run -h)
//	loadgen compare [-fail-on-regression] [-json] OLD.json NEW.json
//	                               per-metric change with a noise-aware verdict
//	loadgen check [-baseline DIR|FILE.json]
//	                               the CI gate: a short fixed suite compared
//	                               on cross-machine ratios with a baseline
//	loadgen history [-o FILE] [-baseline FILE.json|DIR] [DIR|FILE.json ...]
//	                               one HTML page with the history of the
//	                               results (by default results/ and
//	                               results/local/ onto results/local/index.html):
//	                               trends of the ratios the gate checks
//	                               first, runs by date and commit with their
//	                               load, then the other ratios and IDs/s, a
//	                               line per host
//	loadgen publish [-to DIR] [RUN.json ...]
//	                               copy runs (by default the newest in
//	                               results/local/) with their pages and
//	                               charts into results/, to be committed,
//	                               and refresh results/index.html
//	loadgen export [-format gobench|benchmark-action] RUN.json
//	                               a run in Go's benchmark format (for
//	                               benchstat) or github-action-benchmark's JSON
//	loadgen list                   the subjects that can be measured
//	loadgen btree [-rows N] [-pg DSN]
//	                               what the key costs a B-tree: snowlab vs
//	                               UUIDv4/v7, ULID and a sequence on SQLite
//	                               (and PostgreSQL); writes results/local/*-btree.*
//	loadgen alternatives -pg DSN [-duration D] [-pg-control scripts/pg.sh]
//	                               the ID schemes the design documents reject
//	                               (ticket row, sequences, blocks, stride)
//	                               beside snowlab on PostgreSQL: IDs/s,
//	                               latency, disorder, a crash; writes
//	                               results/local/*-alternatives.*
//	loadgen faults [-set short|full] [-scenarios NAME,...]
//	                               a fleet of snowidd replicas (bin/snowidd-faults)
//	                               on an etcd cluster of its own under faults:
//	                               the leader killed, a minority partitioned,
//	                               quorum lost, a replica cut off from etcd,
//	                               slow and lossy links, clock steps, kill -9
//	                               mid-batch, 1,024 holders at once; every ID
//	                               checked; writes results/local/*-faults.*
//	loadgen service [-snowidd bin/snowidd] [-duration D]
//	                               a local snowidd (started on a free
//	                               loopback port, one static node id,
//	                               GOMAXPROCS 1) measured by the lab: req/s
//	                               of NextID over gRPC, Connect proto and
//	                               Connect JSON, IDs/s of NextIDs per batch
//	                               size, the one-caller limit (1/round trip)
//	                               and open-loop latency at half the
//	                               maximum, beside atomicgen/strict
//
// Every run checks what it measured: a duplicate ID, an order a generator
// promised and broke, or a strict generator above its per-tick ceiling is
// listed under failures and makes loadgen exit 1.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
