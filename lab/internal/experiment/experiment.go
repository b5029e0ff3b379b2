// Package experiment is what loadgen's experiments (the suite, loadgen
// run, in lab/internal/cli; faults, service, contention and gates, each in
// a package below this one) have in common: the Experiment interface its
// subcommand implements, so that one runner in lab/internal/cli does the
// prologue every one of them needs (the flag set and the -out, -no-write
// and -q flags, the refusal of stray arguments, the commit, the interrupt)
// and the epilogue (the table, the files, the exit status) once.
package experiment

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/result"
)

// Experiment is one of loadgen's experiments as a subcommand.
type Experiment interface {
	// Name is the subcommand's name (`loadgen NAME`).
	Name() string
	// Flags registers the experiment's own flags on fs.
	Flags(fs *flag.FlagSet)
	// Run checks the flags and runs the experiment. An error wrapping
	// ErrUsage (Usage) is bad input, refused before anything started. A
	// run that failed part way returns what it has with the error, so
	// that it is still shown and kept; a nil Output and a nil error is a
	// run that had nothing to keep (a listing written to Env.Stdout).
	Run(ctx context.Context, env Env) (*Output, error)
}

// Env is what the runner gives an experiment's Run.
type Env struct {
	// Command is the command line, recorded in the result (redacted
	// where the result is made).
	Command []string
	// Commit and Dirty are the source revision, recorded in the result.
	Commit string
	Dirty  bool
	// Quiet is -q: no progress output.
	Quiet bool
	// Stdout is for what a run writes instead of a table (a listing);
	// Stderr is for progress.
	Stdout, Stderr io.Writer
	// BindCPUs holds the process to the CPUs of a -cpus list, as loadgen
	// run does its own, until restore; a bad list is an error naming it.
	BindCPUs func(spec string) (restore func(), err error)
	// Bar starts loadgen run's progress bar on Stderr (nothing under -q
	// or off a terminal): step shows step i of n, finish clears it.
	Bar func() (step func(i, n int, what string), finish func())
}

// Progress is a progress callback that prints one line per message to
// Stderr, or nil under -q.
func (e Env) Progress() func(string) {
	if e.Quiet {
		return nil
	}
	return func(msg string) { fmt.Fprintln(e.Stderr, msg) }
}

// Output is a finished run, whole or partial, as the runner shows and
// keeps it.
type Output struct {
	// Table writes the run's table, which the runner prints on stdout.
	Table func(w io.Writer) error
	// Files writes the run's files into dir (unless -no-write) and
	// returns their paths.
	Files func(dir string) ([]string, error)
	// Suite, when set, is a suite run that the runner writes and checks
	// as `loadgen run` does its own (its files, the history page, the
	// correctness failures); Files is then not called.
	Suite *result.Run
}

// ErrUsage is wrapped by the error Run returns for bad input (exit 2).
var ErrUsage = errors.New("bad usage")

// Usage marks err as bad input: it still reads as err, and wraps both err
// and ErrUsage.
func Usage(err error) error { return usageError{err} }

type usageError struct{ error }

func (e usageError) Unwrap() []error { return []error{e.error, ErrUsage} }
