package btree

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/internal/experiment"
)

// New is `loadgen btree`, run by lab/internal/cli: what the key costs a
// database's B-tree.
func New() experiment.Experiment { return &command{} }

type command struct{ f flags }

func (*command) Name() string             { return "btree" }
func (c *command) Flags(fs *flag.FlagSet) { c.f.register(fs) }

func (c *command) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	setup, err := c.f.check()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	engs, err := setup.Open(ctx)
	defer func() {
		for _, e := range engs {
			if err := e.Close(); err != nil {
				fmt.Fprintf(env.Stderr, "loadgen btree: closing %s: %v\n", e.Info().Engine, err)
			}
		}
	}()
	if err != nil {
		// The driver's parse error, which quotes the DSN, is rewritten
		// where it is made (OpenPostgres).
		return nil, err
	}
	o := setup.Options
	o.Engines, o.Command, o.Commit, o.Dirty, o.Progress = engs, env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := execute(ctx, o)
	if res == nil {
		// execute returns no run only for options out of range.
		return nil, experiment.Usage(err)
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return writeTable(w, res) },
		Files: func(dir string) ([]string, error) { return writeFiles(dir, res) },
	}, err
}
