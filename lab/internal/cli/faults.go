package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/experiment/faults"
)

// faultsCmd is `loadgen faults`: a fleet of snowidd replicas on etcd put
// through the faults that take ID fleets down, every ID checked.
type faultsCmd struct{ f faults.Flags }

func (*faultsCmd) Name() string             { return "faults" }
func (c *faultsCmd) Flags(fs *flag.FlagSet) { c.f.Register(fs) }

func (c *faultsCmd) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	if c.f.List() {
		return nil, faults.WriteList(env.Stdout)
	}
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	o.Command, o.Commit, o.Dirty, o.Progress = env.Command, env.Commit, env.Dirty, env.Progress()
	res, err := faults.Execute(ctx, o)
	if errors.Is(err, faults.ErrOptions) {
		return nil, experiment.Usage(errors.New(strings.TrimPrefix(err.Error(), faults.ErrOptions.Error()+": ")))
	}
	if res == nil {
		return nil, err
	}
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("%d failure(s): %s", len(res.Failures), strings.Join(res.Failures, "; "))
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return faults.WriteTable(w, res) },
		Files: func(dir string) ([]string, error) { return faults.WriteFiles(dir, res) },
	}, err
}
