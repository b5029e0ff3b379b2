package alternatives

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/snowlab/snowlab/lab/internal/experiment"
)

// New is `loadgen alternatives`, run by lab/internal/cli: the ID schemes
// snowlab is read against, measured on PostgreSQL beside it.
func New() experiment.Experiment { return &command{} }

type command struct{ f flags }

func (*command) Name() string             { return experimentName }
func (c *command) Flags(fs *flag.FlagSet) { c.f.register(fs) }

func (c *command) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	setup, err := c.f.check()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	rep, err := setup.StartSnowidd()
	if err != nil {
		return nil, err
	}
	o := setup.Options
	o.Command, o.Commit, o.Dirty, o.Progress = env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := execute(ctx, o)
	if rep != nil {
		err = errors.Join(err, rep.Stop())
	}
	if res == nil {
		return nil, err
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return writeTable(w, res) },
		Files: func(dir string) ([]string, error) { return writeFiles(dir, res) },
	}, err
}
