package daemon

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// A layout whose window does not hold the clock at start is refused: exit
// 2, one line naming the flags, the window and how far the clock is
// outside it. An epoch in 2150 (a typo for 2015) would otherwise serve,
// refusing every call.
func TestLayoutWindowRefusedAtStart(t *testing.T) {
	clock := &steppedClock{}
	// The machine's clock from 2025-06-01T12:00:00Z on, whatever its date.
	clock.step(time.Until(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)))
	for _, tc := range []struct {
		name string
		args []string
		want string // a regular expression
	}{
		{"an epoch in the future", []string{"-epoch", "2150-01-01T00:00:00Z"},
			`^snowidd: -layout 41/10/12 -unit 1ms -epoch 2150-01-01T00:00:00Z: snowlab: value outside the layout's window \[2150-01-01T00:00:00Z, 2219-09-08T15:47:35\.552Z\): the clock \(2025-06-01T12:00:\S+Z\) is 124\.6 years before its epoch: nothing can be minted before it\n$`},
		{"a horizon passed", []string{"-layout", "35/16/12", "-epoch", "2020-01-01T00:00:00Z"},
			`^snowidd: -layout 35/16/12 -unit 1ms -epoch 2020-01-01T00:00:00Z: snowlab: value outside the layout's window \[2020-01-01T00:00:00Z, 2021-02-01T16:22:18\.368Z\): the clock \(2025-06-01T12:00:\S+Z\) is 4\.3 years past its horizon: nothing can be minted any more\n$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			args := append([]string{"-listen", "127.0.0.1:0", "-lease", "static:1"}, tc.args...)
			code := run(context.Background(), args, noEnv, &log, hooks{readKernel: clocksrc.ReadKernel, clock: clock})
			assert.Equal(t, exitUsage, code)
			assert.Equal(t, 1, strings.Count(log.String(), "\n"), log.String())
			assert.Regexp(t, tc.want, log.String())
		})
	}
}

// A window that closes while the replica runs: once its scripted clock is
// stepped past the horizon, every call fails FailedPrecondition, and
// /readyz, gRPC health and snowidd_ready turn not ready with it, and the
// log says why.
func TestWindowClosesWhileRunning(t *testing.T) {
	clock := &steppedClock{}
	h := clock.hooks()
	h.readyEvery = 10 * time.Millisecond
	// 35 bits of milliseconds (397.7 days) ending an hour from now.
	window := time.Duration(1<<35) * time.Millisecond
	epoch := time.Now().Add(time.Hour - window).UnixMilli()
	d := startDaemonWith(t, h, "-lease", "static:9", "-layout", "35/16/12", "-epoch", strconv.FormatInt(epoch, 10))
	waitFor(t, "ready", ready(t, d.url))
	cl, err := client.New(client.Config{Targets: []string{d.url}, Rounds: 1})
	require.NoError(t, err)
	_, err = cl.NextID(context.Background())
	require.NoError(t, err)
	health := grpchealth.NewClient(client.H2CClient(), d.url)
	check := func() grpchealth.Status {
		t.Helper()
		resp, err := health.Check(context.Background(), &grpchealth.CheckRequest{Service: "snowlab.v1.IDService"})
		require.NoError(t, err)
		return resp.Status
	}
	assert.Equal(t, grpchealth.StatusServing, check())
	assert.Contains(t, metrics(t, d.url), "\nsnowidd_ready 1\n")

	logged := d.log.match(regexp.MustCompile(`level=ERROR msg="not ready: the clock is outside the layout's window.* cause=window why=".*past its horizon`))
	clock.step(time.Hour)
	_, err = cl.NextID(context.Background())
	require.Error(t, err)
	assert.Equal(t, connect.CodeFailedPrecondition, connect.CodeOf(err), "%v", err)
	code, body := readyz(testend.Context(t), d.url)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "past its horizon: nothing can be minted any more; every call fails (FailedPrecondition)")
	assert.Equal(t, grpchealth.StatusNotServing, check())
	assert.Contains(t, metrics(t, d.url), "\nsnowidd_ready 0\n")
	select {
	case <-logged:
	case <-testend.Context(t).Done(): // the watcher reads every 10 ms
		t.Fatalf("the window's closing is not in the log by the test's end:\n%s", d.log)
	}
	assert.Equal(t, 0, d.stop(t), d.log.String())
}
