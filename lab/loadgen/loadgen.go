// Package loadgen is the lab's one entry point for its command:
// cmd/loadgen's main is a call to Main, and so is any program that wants
// loadgen inside it.
//
// Why a package of its own: cmd/loadgen stays at the top of the tree, so
// that `go install github.com/snowlab/snowlab/cmd/loadgen@VERSION` keeps
// working, but a module holds only its own folder, and the lab module is
// rooted at lab/. So cmd/loadgen is a module of one file that requires
// the lab, and everything loadgen is (flags, subcommands, reports,
// experiments) lives in the lab's internal tree, which no other module
// may import. Main cannot sit in package lab itself: the command line
// runs the lab's Suite, so package lab importing it would be a cycle.
package loadgen

import (
	"io"

	"github.com/snowlab/snowlab/lab/internal/cli"
)

// Main runs loadgen with args (the command line without the program's
// name, as os.Args[1:]), writing to stdout and stderr, and returns the
// exit status: 0 on success, 1 when a run failed its checks or a step
// failed, 2 for bad input (a flag, a value, a subcommand). `loadgen help`
// lists the subcommands.
func Main(args []string, stdout, stderr io.Writer) int {
	return cli.Main(args, stdout, stderr)
}
