// Command loadgen is snowlab's performance lab.
//
// With no arguments it runs the standard suite (about a minute on two
// cores, a strict peer far below its ceiling asked for what it serves in
// 500 ms: -ceiling-budget): a 100,000-ID fan-out burst, a saturate sweep over goroutine
// counts and an open-loop steady run, against snowlab's generators (mutex
// baseline, lock-free, sharded; both policies), the physical limits they
// are read against (limit/clock+add: a clock read and one fetch-and-add
// on a shared word, their own common path; limit/per-p+add: the same on
// the calling P's word; the compare-and-swap loops limit/clock+cas and
// limit/per-p, for the peers) and the
// Go ID libraries people use today, all in one process on one host; -gomaxprocs N
// runs it on N cores. It prints a table,
// and writes results/local/<date>-<host>-<sha>.json, a Markdown summary
// and a self-contained HTML page (.html) beside it, SVG charts under
// results/local/<date>-<host>-<sha>/, and refreshes results/local/index.html,
// the history of the published runs and its own. Git ignores results/local/,
// so a run never dirties the checkout; loadgen publish is the deliberate
// step that copies one into results/ to be committed.
//
// `loadgen help` lists the subcommands (compare, ab, instr, history, publish,
// export, list, service, faults, contention, gates), and `loadgen
// SUBCOMMAND -h` each one's flags: one text, so that the two cannot
// differ.
//
// Every run checks what it measured: a duplicate ID, an order a generator
// promised and broke, or a strict generator above its per-tick ceiling is
// listed under failures and makes loadgen exit 1.
//
// Install it with go install github.com/snowlab/snowlab/lab/cmd/loadgen@latest,
// or run it in a checkout with go run ./lab/cmd/loadgen. It is part of the
// lab module: main is flags and dispatch, lab/internal/cli.
package main

import (
	"os"

	"github.com/snowlab/snowlab/lab/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
