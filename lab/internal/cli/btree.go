package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/snowlab/snowlab/lab/internal/experiment/btree"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/vcs"
)

// runBtree is `loadgen btree`: what the key costs a database's B-tree.
func runBtree(args, command []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen btree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f btree.Flags
	f.Register(fs)
	out := fs.String("out", resultdir.DefaultOut(), "folder for the result files (JSON, Markdown, SVG charts, HTML); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress lines")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadgen btree: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	setup, err := f.Setup()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen btree: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	engs, err := setup.Open(ctx)
	defer func() {
		for _, e := range engs {
			if err := e.Close(); err != nil {
				fmt.Fprintf(stderr, "loadgen btree: closing %s: %v\n", e.Info().Engine, err)
			}
		}
	}()
	if err != nil {
		// The driver's parse error, which quotes the DSN, is rewritten
		// where it is made (btree.OpenPostgres).
		fmt.Fprintf(stderr, "loadgen btree: %v\n", err)
		return exitFailure
	}
	o := setup.Options
	o.Engines, o.Command = engs, command
	o.Commit, o.Dirty = vcs.Commit()
	if !*quiet {
		o.Progress = func(msg string) { fmt.Fprintln(stderr, msg) }
	}
	res, runErr := btree.Execute(ctx, o)
	if res == nil {
		fmt.Fprintf(stderr, "loadgen btree: %v\n", runErr)
		return exitUsage
	}
	return finishExperiment("btree", stdout, stderr, func(w io.Writer) error { return btree.WriteTable(w, res) },
		*noWrite, func() ([]string, error) { return btree.WriteFiles(*out, res) }, runErr)
}
