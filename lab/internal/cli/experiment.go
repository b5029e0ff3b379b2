package cli

import (
	"fmt"
	"io"
)

// finishExperiment ends an experiment's subcommand (btree, alternatives):
// the table on stdout, the result files unless noWrite (write returns
// the paths written), and the run's own error last, so that a partial
// run is still shown and kept. An experiment's errors quote no DSN: the
// driver's parse error, the one that would, is rewritten where it is made
// (redact.Error).
func finishExperiment(name string, stdout, stderr io.Writer, table func(io.Writer) error, noWrite bool, write func() ([]string, error), runErr error) int {
	if err := table(stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen %s: %v\n", name, err)
		return exitFailure
	}
	if !noWrite {
		paths, err := write()
		if err != nil {
			fmt.Fprintf(stderr, "loadgen %s: writing results: %v\n", name, err)
			return exitFailure
		}
		printWrote(stdout, paths)
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "loadgen %s: %v\n", name, runErr)
		return exitFailure
	}
	return exitOK
}

// printWrote lists the files a run wrote, after a blank line.
func printWrote(stdout io.Writer, paths []string) {
	fmt.Fprintln(stdout)
	for _, p := range paths {
		fmt.Fprintln(stdout, "wrote", p)
	}
}
