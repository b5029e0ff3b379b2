package faults

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/experiment"
)

// New is `loadgen faults`, run by lab/internal/cli: a fleet of snowidd
// replicas on etcd put through the faults that take ID fleets down, every
// ID checked.
func New() experiment.Experiment { return &command{} }

type command struct{ f flags }

func (*command) Name() string             { return "faults" }
func (c *command) Flags(fs *flag.FlagSet) { c.f.register(fs) }

func (c *command) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	if c.f.list {
		return nil, writeList(env.Stdout)
	}
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	o.Command, o.Commit, o.Dirty, o.Progress = env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := execute(ctx, o)
	if errors.Is(err, errOptions) {
		return nil, experiment.Usage(errors.New(strings.TrimPrefix(err.Error(), errOptions.Error()+": ")))
	}
	if res == nil {
		return nil, err
	}
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("%d failure(s): %s", len(res.Failures), strings.Join(res.Failures, "; "))
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return writeTable(w, res) },
		Files: func(dir string) ([]string, error) { return writeFiles(dir, res) },
	}, err
}
