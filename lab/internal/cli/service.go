package cli

import (
	"context"
	"flag"
	"io"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/experiment/service"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/lab/internal/report"
)

// serviceCmd is `loadgen service`: a local snowidd measured by the lab's
// own loops and checks, beside the in-process generator. Its result is a
// suite run, written and checked as `loadgen run` writes and checks one.
type serviceCmd struct{ f service.Flags }

func (*serviceCmd) Name() string             { return "service" }
func (c *serviceCmd) Flags(fs *flag.FlagSet) { c.f.Register(fs) }

func (c *serviceCmd) Run(_ context.Context, env experiment.Env) (*experiment.Output, error) {
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	restore, err := bindCPUs(o.CPUs, 0)
	if err != nil {
		return nil, experiment.Usage(err)
	}
	defer restore()
	rep, err := remote.StartReplica(o.Bin, remote.ReplicaConfig{Procs: o.ServerProcs, Shards: o.Shards, CPUs: o.ServerCPUs})
	if err != nil {
		return nil, err
	}
	bar := newProgress(env.Stderr, env.Quiet, 0)
	res, err := service.Measure(rep, o, service.Config{Command: env.Command, Commit: env.Commit, Dirty: env.Dirty, Progress: bar.step})
	bar.finish()
	if stopErr := rep.Stop(); err == nil && stopErr != nil {
		err = stopErr
	}
	if err != nil {
		return nil, err
	}
	sum := service.Summarize(res, o)
	return &experiment.Output{Table: func(w io.Writer) error {
		if err := report.WriteTable(w, res); err != nil {
			return err
		}
		service.WriteSummary(w, sum)
		return nil
	}, Suite: res}, nil
}
