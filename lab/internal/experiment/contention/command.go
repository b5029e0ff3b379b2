package contention

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/internal/experiment"
)

// New is `loadgen contention`, run by lab/internal/cli: oversubscription
// beside a CPU hog, and the padding A/B at every placement the host has.
func New() experiment.Experiment { return &command{} }

type command struct{ f flags }

func (*command) Name() string             { return "contention" }
func (c *command) Flags(fs *flag.FlagSet) { c.f.register(fs) }

func (c *command) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	res, err := execute(ctx, o, env.Command, env.Commit, env.Dirty, env.Progress())
	for _, w := range res.Warnings {
		fmt.Fprintln(env.Stderr, "loadgen contention:", w)
	}
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("%d checks failed: %v", len(res.Failures), res.Failures)
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return writeTable(w, res) },
		Files: func(dir string) ([]string, error) { return writeFiles(dir, res) },
	}, err
}
