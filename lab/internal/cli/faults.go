package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/experiment/faults"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/vcs"
)

// runFaults is `loadgen faults`: a fleet of snowidd replicas on etcd put
// through the faults that take ID fleets down, every ID checked.
func runFaults(args, command []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen faults", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f faults.Flags
	f.Register(fs)
	out := fs.String("out", resultdir.DefaultOut(), "folder for the result files (JSON, Markdown, HTML); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress lines")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loadgen faults: "+format+"\n", a...)
		return exitUsage
	}
	if f.List() {
		if err := faults.WriteList(stdout); err != nil {
			fmt.Fprintf(stderr, "loadgen faults: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	o, err := f.Options()
	if err != nil {
		return fail("%v", err)
	}
	o.Command = command
	o.Commit, o.Dirty = vcs.Commit()
	if !*quiet {
		o.Progress = func(msg string) { fmt.Fprintln(stderr, msg) }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := faults.Execute(ctx, o)
	if errors.Is(err, faults.ErrOptions) {
		return fail("%s", strings.TrimPrefix(err.Error(), faults.ErrOptions.Error()+": "))
	}
	if res == nil {
		fmt.Fprintf(stderr, "loadgen faults: %v\n", err)
		return exitFailure
	}
	runErr := err
	if runErr == nil && len(res.Failures) > 0 {
		runErr = fmt.Errorf("%d failure(s): %s", len(res.Failures), strings.Join(res.Failures, "; "))
	}
	return finishExperiment("faults", stdout, stderr, func(w io.Writer) error { return faults.WriteTable(w, res) },
		*noWrite, func() ([]string, error) { return faults.WriteFiles(*out, res) }, runErr)
}
