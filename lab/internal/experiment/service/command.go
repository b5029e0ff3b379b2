package service

import (
	"context"
	"flag"
	"io"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/lab/internal/report"
)

// New is `loadgen service`, run by lab/internal/cli: a local snowidd
// measured by the lab's own loops and checks, beside the in-process
// generator. Its result is a suite run, written and checked as `loadgen
// run` writes and checks one.
func New() experiment.Experiment { return &command{} }

type command struct{ f flags }

func (*command) Name() string             { return "service" }
func (c *command) Flags(fs *flag.FlagSet) { c.f.register(fs) }

// Run measures a replica it starts and stops. Ctrl-C (ctx done) stops the
// replica at once, which fails its calls and so ends each of its repeats
// at the next call, and no steady run starts; Run then returns ctx's
// error and no result.
func (c *command) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	restore, err := env.BindCPUs(o.CPUs)
	if err != nil {
		return nil, experiment.Usage(err)
	}
	defer restore()
	rep, err := remote.StartReplica(o.Bin, remote.ReplicaConfig{Procs: o.ServerProcs, Shards: o.Shards, CPUs: o.ServerCPUs})
	if err != nil {
		return nil, err
	}
	interrupt := context.AfterFunc(ctx, func() { _ = rep.Stop() })
	step, finish := env.Bar()
	res, err := measure(ctx, rep, o, config{Command: env.Command, Commit: env.Commit, Dirty: env.Dirty, Progress: step})
	finish()
	interrupt()
	if stopErr := rep.Stop(); err == nil && stopErr != nil {
		err = stopErr
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	sum := summarize(res, o)
	return &experiment.Output{Table: func(w io.Writer) error {
		if err := report.WriteTable(w, res); err != nil {
			return err
		}
		writeSummary(w, sum)
		return nil
	}, Suite: res}, nil
}
