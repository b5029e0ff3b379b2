package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/experiment/peerfaults"
)

// peerfaultsCmd is `loadgen peerfaults`: the failures the peers' trackers
// report, replayed against the peer where the lab runs it and against
// snowlab's compositions.
type peerfaultsCmd struct{ f peerfaults.Flags }

func (*peerfaultsCmd) Name() string             { return "peerfaults" }
func (c *peerfaultsCmd) Flags(fs *flag.FlagSet) { c.f.Register(fs) }

func (c *peerfaultsCmd) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	if c.f.List() {
		return nil, peerfaults.WriteList(env.Stdout)
	}
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(errors.New(strings.TrimPrefix(err.Error(), peerfaults.ErrOptions.Error()+": ")))
	}
	o.Command, o.Commit, o.Dirty, o.Progress = env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := peerfaults.Execute(ctx, o)
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("%d check(s) failed: %s", len(res.Failures), strings.Join(res.Failures, "; "))
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return peerfaults.WriteTable(w, res) },
		Files: func(dir string) ([]string, error) { return peerfaults.WriteFiles(dir, res) },
	}, err
}
