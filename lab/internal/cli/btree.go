package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/experiment/btree"
)

// btreeCmd is `loadgen btree`: what the key costs a database's B-tree.
type btreeCmd struct{ f btree.Flags }

func (*btreeCmd) Name() string             { return "btree" }
func (c *btreeCmd) Flags(fs *flag.FlagSet) { c.f.Register(fs) }

func (c *btreeCmd) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	setup, err := c.f.Setup()
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
		// where it is made (btree.OpenPostgres).
		return nil, err
	}
	o := setup.Options
	o.Engines, o.Command, o.Commit, o.Dirty, o.Progress = engs, env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := btree.Execute(ctx, o)
	if res == nil {
		// Execute returns no run only for options out of range.
		return nil, experiment.Usage(err)
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return btree.WriteTable(w, res) },
		Files: func(dir string) ([]string, error) { return btree.WriteFiles(dir, res) },
	}, err
}
