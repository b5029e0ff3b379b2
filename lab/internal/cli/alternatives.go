package cli

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/experiment/alternatives"
)

// alternativesCmd is `loadgen alternatives`: the ID schemes snowlab is
// read against, measured on PostgreSQL beside it.
type alternativesCmd struct{ f alternatives.Flags }

func (*alternativesCmd) Name() string             { return "alternatives" }
func (c *alternativesCmd) Flags(fs *flag.FlagSet) { c.f.Register(fs) }

func (c *alternativesCmd) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	setup, err := c.f.Setup()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	rep, err := setup.StartSnowidd()
	if err != nil {
		return nil, err
	}
	o := setup.Options
	o.Command, o.Commit, o.Dirty, o.Progress = env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := alternatives.Execute(ctx, o)
	if rep != nil {
		err = errors.Join(err, rep.Stop())
	}
	if res == nil {
		return nil, err
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return alternatives.WriteTable(w, res) },
		Files: func(dir string) ([]string, error) { return alternatives.WriteFiles(dir, res) },
	}, err
}
