package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/snowlab/snowlab/lab/internal/experiment/alternatives"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/vcs"
)

// runAlternatives is `loadgen alternatives`: the ID schemes snowlab is
// read against, measured on PostgreSQL beside it.
func runAlternatives(args, command []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen alternatives", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f alternatives.Flags
	f.Register(fs)
	out := fs.String("out", resultdir.DefaultOut(), "folder for the result files (JSON, Markdown, SVG charts, HTML); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress lines")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadgen alternatives: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	setup, err := f.Setup()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen alternatives: %v\n", err)
		return exitUsage
	}
	rep, err := setup.StartSnowidd()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen alternatives: %v\n", err)
		return exitFailure
	}
	o := setup.Options
	o.Command = command
	o.Commit, o.Dirty = vcs.Commit()
	if !*quiet {
		o.Progress = func(msg string) { fmt.Fprintln(stderr, msg) }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, runErr := alternatives.Execute(ctx, o)
	if rep != nil {
		runErr = errors.Join(runErr, rep.Stop())
	}
	if res == nil {
		fmt.Fprintf(stderr, "loadgen alternatives: %v\n", runErr)
		return exitFailure
	}
	return finishExperiment("alternatives", stdout, stderr, func(w io.Writer) error { return alternatives.WriteTable(w, res) },
		*noWrite, func() ([]string, error) { return alternatives.WriteFiles(*out, res) }, runErr)
}
