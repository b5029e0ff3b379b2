package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/experiment/contention"
	"github.com/snowlab/snowlab/lab/internal/hog"
)

// contentionCmd is `loadgen contention`: oversubscription beside a CPU
// hog, and the padding A/B at every placement the host has.
type contentionCmd struct{ f contention.Flags }

func (*contentionCmd) Name() string             { return "contention" }
func (c *contentionCmd) Flags(fs *flag.FlagSet) { c.f.Register(fs) }

func (c *contentionCmd) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	res, err := contention.Execute(ctx, o, env.Command, env.Commit, env.Dirty, env.Progress())
	for _, w := range res.Warnings {
		fmt.Fprintln(env.Stderr, "loadgen contention:", w)
	}
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("%d checks failed: %v", len(res.Failures), res.Failures)
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return contention.WriteTable(w, res) },
		Files: func(dir string) ([]string, error) { return contention.WriteFiles(dir, res) },
	}, err
}

// runHog is `loadgen hog -threads N -for D`: the CPU hog's child process
// (package hog), which loadgen contention starts beside a run.
func runHog(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen hog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threads := fs.Int("threads", 1, fmt.Sprintf("busy goroutines, on as many Ps (1 to %d)", hog.MaxThreads))
	d := fs.Duration("for", time.Second, fmt.Sprintf("how long to spin (at most %v)", hog.MaxFor))
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if err := hog.Busy(*threads, *d); err != nil {
		fmt.Fprintf(stderr, "loadgen hog: %v\n", err)
		return exitUsage
	}
	return exitOK
}
