package cli

import (
	"context"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/experiment"
)

// TestSuiteInterrupt: Ctrl-C (the context cancelled) at the first step of
// a ten-minute open loop ends loadgen run's Run with the context's error
// and no result, so that loadgen exits instead of measuring on.
func TestSuiteInterrupt(t *testing.T) {
	x := &suiteCmd{}
	fs := flag.NewFlagSet("loadgen run", flag.ContinueOnError)
	x.Flags(fs)
	require.NoError(t, fs.Parse([]string{"-subjects", "atomicgen/strict", "-workloads", "steady", "-rate", "1", "-steady-duration", "10m"}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var steps []string
	env := experiment.Env{Stdout: io.Discard, Stderr: io.Discard,
		Bar: func() (func(int, int, string), func()) {
			return func(_, _ int, what string) { steps = append(steps, what); cancel() }, func() {}
		}}
	out, err := x.Run(ctx, env)
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, out)
	assert.Equal(t, []string{"steady atomicgen/strict"}, steps)
}
