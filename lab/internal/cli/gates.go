package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/experiment/gates"
	"github.com/snowlab/snowlab/lab/internal/instr"
)

// gatesCmd is `loadgen gates`: the regression gates' false alarms over
// same-code pairs and their detection of planted slowdowns, quiet and
// beside a CPU hog.
type gatesCmd struct{ f gates.Flags }

func (*gatesCmd) Name() string             { return "gates" }
func (c *gatesCmd) Flags(fs *flag.FlagSet) { c.f.Register(fs) }

func (c *gatesCmd) Run(ctx context.Context, env experiment.Env) (*experiment.Output, error) {
	o, err := c.f.Options()
	if err != nil {
		return nil, experiment.Usage(err)
	}
	if len(o.Paths) > 0 {
		if _, err := exec.LookPath(o.Runner.Valgrind); err != nil {
			return nil, fmt.Errorf("%w: %s not found: the instr gate counts under valgrind (scripts/instr-gate.sh installs it; or -gates ab)", instr.ErrValgrind, o.Runner.Valgrind)
		}
	}
	res, err := gates.Execute(ctx, o, env.Command, env.Commit, env.Dirty, env.Progress())
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("%d goals missed: %v", len(res.Failures), res.Failures)
	}
	return &experiment.Output{
		Table: func(w io.Writer) error { return gates.WriteTable(w, res) },
		Files: func(dir string) ([]string, error) { return gates.WriteFiles(dir, res) },
	}, err
}
