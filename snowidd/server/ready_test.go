package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/client"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/server"
)

// requireReadiness checks that /readyz, grpc.health.v1 (the whole server
// and the IDService), snowidd_ready and Readiness agree: ready when cause
// is "", else not ready for cause, /readyz saying want.
func (r *rig) requireReadiness(cause, want, msg string) {
	r.t.Helper()
	health := grpchealth.NewClient(client.H2CClient(), r.url)
	for _, svc := range []string{"", "snowlab.v1.IDService"} {
		resp, err := health.Check(ctx, &grpchealth.CheckRequest{Service: svc})
		require.NoError(r.t, err)
		status := grpchealth.StatusServing
		if cause != "" {
			status = grpchealth.StatusNotServing
		}
		assert.Equal(r.t, status, resp.Status, "%s: gRPC health of %q", msg, svc)
	}
	code, body := r.get("/readyz")
	got, why := r.srv.Readiness()
	assert.Equal(r.t, cause, got, "%s: %s", msg, why)
	if cause == "" {
		assert.Equal(r.t, http.StatusOK, code, "%s: %s", msg, body)
		assert.Equal(r.t, 1.0, r.metric("snowidd_ready"), msg)
		return
	}
	assert.Equal(r.t, http.StatusServiceUnavailable, code, msg)
	// The test clock runs on between the two readings: the words may
	// differ in the clock's last digits.
	assert.True(r.t, strings.HasPrefix(body, "not ready: "), "%s: %s", msg, body)
	assert.Contains(r.t, body, want, msg)
	assert.Contains(r.t, why, want, msg)
	assert.Equal(r.t, 0.0, r.metric("snowidd_ready"), msg)
}

// nearHorizon is a layout of 30 bits of milliseconds (12.4 days) whose
// horizon is one minute after at.
func nearHorizon(at time.Time) snowlab.Layout {
	window := time.Duration(1<<30) * time.Millisecond
	return snowlab.Layout{TimeBits: 30, NodeBits: 21, SeqBits: 12, Unit: time.Millisecond,
		Epoch: at.Add(time.Minute - window).UTC()}
}

// A window that closes while the replica runs: from the horizon on every
// call fails FailedPrecondition, and /readyz, gRPC health and
// snowidd_ready all say so, naming the window.
func TestReadinessWhenTheWindowCloses(t *testing.T) {
	clock0 := newTestClock().Now()
	l := nearHorizon(clock0)
	r := newRig(t, rigOpts{layout: l})
	_, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)
	r.requireReadiness("", "", "a minute before the horizon")

	r.clock.Add(time.Minute)
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.Equal(t, connect.CodeFailedPrecondition, connect.CodeOf(err), "%v", err)
	_, err = r.json.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: 3}))
	require.Equal(t, connect.CodeFailedPrecondition, connect.CodeOf(err), "%v", err)
	window := "[" + l.Epoch.Format(time.RFC3339Nano) + ", " + l.Horizon().UTC().Format(time.RFC3339Nano) + ")"
	r.requireReadiness(server.CauseWindow, "snowlab: value outside the layout's window "+window, "at the horizon")
	_, why := r.srv.Readiness()
	assert.Contains(t, why, "past its horizon: nothing can be minted any more; every call fails (FailedPrecondition)")
	code, _ := r.get("/healthz")
	assert.Equal(t, http.StatusOK, code, "liveness: a restart does not reopen the window")
	assert.Equal(t, 1.0, r.metric("snowidd_ids_issued_total"))
}

// An epoch ahead of the clock: not ready, saying how far, until the
// window opens; then ready, and calls are served.
func TestReadinessBeforeTheEpoch(t *testing.T) {
	clock0 := newTestClock().Now()
	epoch := clock0.Add(2 * time.Hour).Truncate(time.Second).UTC() // 2025-06-01T14:00:00Z
	l := snowlab.Layout{TimeBits: 41, NodeBits: 10, SeqBits: 12, Unit: time.Millisecond, Epoch: epoch}
	r := newRig(t, rigOpts{layout: l})
	_, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.Equal(t, connect.CodeFailedPrecondition, connect.CodeOf(err), "%v", err)
	r.requireReadiness(server.CauseWindow, "window [2025-06-01T14:00:00Z, 2095-02-06T05:47:35.552Z)", "two hours before the epoch")
	_, why := r.srv.Readiness()
	assert.Regexp(t, `the clock \(2025-06-01T12:00:00\.\d+Z\) is 1h59m59\.\d+s before its epoch: nothing can be minted before it; every call fails \(FailedPrecondition\)$`, why)

	r.clock.Add(2 * time.Hour)
	r.requireReadiness("", "", "the window opened")
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)
}

// CheckWindow names the window and how far outside it the clock is,
// wrapping ErrOverflow; the edges are the epoch (in) and the horizon (out).
func TestCheckWindow(t *testing.T) {
	d := snowlab.DefaultLayout
	for _, tc := range []struct {
		name string
		l    snowlab.Layout
		now  time.Time
		want string // "" for inside
	}{
		{"the default layout now", snowlab.Layout{}, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), ""},
		{"at the epoch", d, d.Epoch, ""},
		{"the last instant", d, d.Horizon().Add(-1), ""},
		{"at the horizon", d, d.Horizon(), "snowlab: value outside the layout's window [2024-01-01T00:00:00Z, 2093-09-06T15:47:35.552Z): the clock (2093-09-06T15:47:35.552Z) is 0s past its horizon: nothing can be minted any more"},
		{"a nanosecond before the epoch", d, d.Epoch.Add(-1), "the clock (2023-12-31T23:59:59.999999999Z) is 0s before its epoch"},
		{"an epoch in 2150", snowlab.Layout{TimeBits: 41, NodeBits: 10, SeqBits: 12, Unit: time.Millisecond, Epoch: time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC)},
			time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
			"[2150-01-01T00:00:00Z, 2219-09-08T15:47:35.552Z): the clock (2025-06-01T00:00:00Z) is 124.6 years before its epoch: nothing can be minted before it"},
		{"a horizon 3 days back", nearHorizon(d.Epoch), d.Epoch.Add(time.Minute + 72*time.Hour), "is 3.0 days past its horizon"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := server.CheckWindow(tc.l, tc.now)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, snowlab.ErrOverflow)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// WatchReady reports each change of readiness's cause, on a virtual
// clock: the generator installed (ready), then the window closing with
// no call or probe to ask, and nothing in between.
func TestWatchReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The bubble's clock starts at 2000-01-01T00:00:00Z.
		start := time.Now()
		l := nearHorizon(start)
		srv, err := server.New(server.Config{Layout: l, ReadKernel: func() clocksrc.Kernel { return unknownKernel }})
		require.NoError(t, err)
		type change struct{ cause, why string }
		var mu sync.Mutex
		var changes []change
		seen := func() []change {
			mu.Lock()
			defer mu.Unlock()
			return append([]change(nil), changes...)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go srv.WatchReady(ctx, time.Second, func(cause, why string) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, change{cause, why})
		})
		synctest.Wait()

		g, err := atomicgen.New(snowlab.Config{Node: 7, Layout: l, Clock: clocksrc.Func(func() int64 { return time.Now().UnixNano() })})
		require.NoError(t, err)
		srv.Use(g, snowlab.Config{Node: 7, Layout: l}, nil, 1)
		time.Sleep(time.Second)
		synctest.Wait()
		require.Equal(t, []change{{"", ""}}, seen(), "ready once the generator is in use; the first reading is not reported")

		time.Sleep(time.Minute - 2*time.Second) // just before the horizon
		synctest.Wait()
		assert.Len(t, seen(), 1, "nothing changed")
		_, err = g.NextID()
		require.NoError(t, err)

		time.Sleep(2 * time.Second)
		synctest.Wait()
		got := seen()
		require.Len(t, got, 2)
		assert.Equal(t, server.CauseWindow, got[1].cause)
		assert.True(t, strings.HasPrefix(got[1].why, "snowlab: value outside the layout's window ["), got[1].why)
		assert.Contains(t, got[1].why, "is 0s past its horizon")
		_, err = g.NextID()
		require.ErrorIs(t, err, snowlab.ErrOverflow)

		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Len(t, seen(), 2, "the same cause is reported once")
		cancel()
		synctest.Wait()
	})
}
