package peerfaults

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/experiment"
)

// New is `loadgen peerfaults`, run by lab/internal/cli: the failures the
// peers' trackers report, replayed against the peer where the lab runs it
// and against snowlab's compositions.
func New() experiment.Experiment { return &command{} }

type command struct{ f flags }

func (*command) Name() string             { return "peerfaults" }
func (c *command) Flags(fs *flag.FlagSet) { c.f.register(fs) }

func (c *command) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	if c.f.List() {
		return nil, writeList(env.Stdout)
	}
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(errors.New(strings.TrimPrefix(err.Error(), errOptions.Error()+": ")))
	}
	o.Command, o.Commit, o.Dirty, o.Progress = env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := execute(ctx, o)
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("%d check(s) failed: %s", len(res.Failures), strings.Join(res.Failures, "; "))
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return writeTable(w, res) },
		Files: func(dir string) ([]string, error) { return writeFiles(dir, res) },
	}, err
}
