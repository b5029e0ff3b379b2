// Package cli is loadgen's command line: its flags, its subcommands and
// their dispatch over the lab's packages. It is internal to the lab module
// so that none of it is API; lab/cmd/loadgen's main is a call to Main,
// and its documentation says what the command does.
package cli

import "io"

// Main runs loadgen with args (the command line without the program's
// name), writing to stdout and stderr, and returns the exit status: 0, 1
// when a run failed its checks or a step failed, 2 for bad input.
func Main(args []string, stdout, stderr io.Writer) int {
	return run(args, stdout, stderr)
}
