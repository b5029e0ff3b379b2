package server_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/server"
)

// scriptedKernel is the kernel's answer as the test sets it: what the
// server reads instead of this machine's adjtimex.
type scriptedKernel struct {
	k atomic.Pointer[clocksrc.Kernel]
}

func newScriptedKernel(k clocksrc.Kernel) *scriptedKernel {
	s := &scriptedKernel{}
	s.set(k)
	return s
}

func (s *scriptedKernel) set(k clocksrc.Kernel) { s.k.Store(&k) }
func (s *scriptedKernel) read() clocksrc.Kernel { return *s.k.Load() }

var (
	syncedKernel = clocksrc.Kernel{Known: true, Synchronized: true, State: clocksrc.TimeOK,
		Status: clocksrc.StaPLL | clocksrc.StaNano, MaxError: 16500 * time.Microsecond, EstError: 120 * time.Microsecond}
	unsyncedKernel = clocksrc.Kernel{Known: true, State: clocksrc.TimeError, Status: clocksrc.StaUnsync,
		MaxError: 16 * time.Second, EstError: 16 * time.Second}
	unknownKernel = clocksrc.Kernel{Reason: "the kernel's clock discipline is read on Linux only (adjtimex), not on darwin"}
)

func withLeap(k clocksrc.Kernel, state clocksrc.TimeState, leap clocksrc.Leap, status clocksrc.Status) clocksrc.Kernel {
	k.State, k.Leap, k.Status = state, leap, k.Status|status
	return k
}

func withMaxError(k clocksrc.Kernel, d time.Duration) clocksrc.Kernel {
	k.MaxError = d
	return k
}

// The clock gauges are read from the kernel at each scrape, and absent
// where it does not say.
func TestClockMetrics(t *testing.T) {
	kernel := newScriptedKernel(syncedKernel)
	r := newRig(t, rigOpts{kernel: kernel.read})
	for _, tc := range []struct {
		name   string
		kernel clocksrc.Kernel
		want   []string // lines of /metrics; nil: the three series absent
	}{
		{"synchronized", syncedKernel, []string{
			"snowidd_clock_synchronized 1\n", "snowidd_clock_leap_pending 0\n", "snowidd_clock_max_error_seconds 0.0165\n"}},
		{"leap second armed", withLeap(syncedKernel, clocksrc.TimeIns, clocksrc.LeapInsert, clocksrc.StaIns), []string{
			"snowidd_clock_synchronized 1\n", "snowidd_clock_leap_pending 1\n"}},
		{"leap second under way", withLeap(syncedKernel, clocksrc.TimeOOP, clocksrc.LeapInProgress, clocksrc.StaIns), []string{
			"snowidd_clock_leap_pending 1\n"}},
		{"leap second taken", withLeap(syncedKernel, clocksrc.TimeWait, clocksrc.LeapTaken, clocksrc.StaIns), []string{
			"snowidd_clock_leap_pending 0\n"}},
		{"unsynchronized", unsyncedKernel, []string{
			"snowidd_clock_synchronized 0\n", "snowidd_clock_leap_pending 0\n", "snowidd_clock_max_error_seconds 16\n"}},
		{"unknown", unknownKernel, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kernel.set(tc.kernel)
			code, body := r.get("/metrics")
			require.Equal(t, http.StatusOK, code)
			for _, w := range tc.want {
				assert.Contains(t, body, w)
			}
			if tc.want == nil {
				for _, name := range []string{"snowidd_clock_synchronized", "snowidd_clock_leap_pending", "snowidd_clock_max_error_seconds"} {
					assert.NotContains(t, body, name, "an unknown clock is no guess")
				}
			}
			// The check is off: the clock never holds readiness.
			assert.Equal(t, 1.0, r.metric("snowidd_ready"))
		})
	}
}

// With ClockMaxError set, the replica is not ready while the kernel does
// not vouch for the clock, and says why; liveness never fails for it.
func TestClockReadiness(t *testing.T) {
	kernel := newScriptedKernel(syncedKernel)
	r := newRig(t, rigOpts{kernel: kernel.read, clockMaxError: 100 * time.Millisecond})
	for _, tc := range []struct {
		name   string
		kernel clocksrc.Kernel
		why    string // "" for ready
	}{
		{"synchronized within the bound", syncedKernel, ""},
		{"unsynchronized", unsyncedKernel, "the clock is not synchronized: the kernel reports TIME_ERROR, status UNSYNC, maximum error 16s"},
		{"STA_UNSYNC without TIME_ERROR", clocksrc.Kernel{Known: true, State: clocksrc.TimeOK, Status: clocksrc.StaUnsync, MaxError: time.Millisecond},
			"the clock is not synchronized: the kernel reports TIME_OK, status UNSYNC, maximum error 1ms"},
		{"maximum error above the bound", withMaxError(syncedKernel, 250*time.Millisecond),
			"the clock's maximum error 250ms is above the bound of 100ms"},
		{"maximum error at the bound", withMaxError(syncedKernel, 100*time.Millisecond), ""},
		{"unknown", unknownKernel, "the clock's discipline is unknown (the kernel's clock discipline is read on Linux only (adjtimex), not on darwin)"},
		{"a leap second armed is no reason", withLeap(syncedKernel, clocksrc.TimeIns, clocksrc.LeapInsert, clocksrc.StaIns), ""},
		{"synchronized again", syncedKernel, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kernel.set(tc.kernel)
			code, body := r.get("/readyz")
			if tc.why == "" {
				assert.Equal(t, http.StatusOK, code, body)
				assert.Equal(t, 1.0, r.metric("snowidd_ready"))
			} else {
				assert.Equal(t, http.StatusServiceUnavailable, code)
				assert.Equal(t, "not ready: ", body[:min(len(body), len("not ready: "))])
				assert.Contains(t, body, tc.why)
				assert.Equal(t, 0.0, r.metric("snowidd_ready"))
			}
			code, _ = r.get("/healthz")
			assert.Equal(t, http.StatusOK, code)
		})
	}
}

// snowidd_layout_horizon_seconds is the time from the server's clock to
// the layout's horizon, read at each scrape.
func TestHorizonMetric(t *testing.T) {
	clock := newTestClock()
	short := snowlab.Layout{TimeBits: 35, NodeBits: 16, SeqBits: 12, Unit: time.Millisecond,
		Epoch: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	passed := snowlab.Layout{TimeBits: 35, NodeBits: 16, SeqBits: 12, Unit: time.Millisecond,
		Epoch: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		name   string
		layout snowlab.Layout
	}{
		{"default layout", snowlab.Layout{}},
		{"35 bits of ms from 2025", short},
		{"horizon passed", passed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := server.New(server.Config{Layout: tc.layout, Now: clock.Now, ReadKernel: func() clocksrc.Kernel { return unknownKernel }})
			require.NoError(t, err)
			want := tc.layout.TimeLeft(clock.Now()).Seconds()
			got := gauge(t, srv, "snowidd_layout_horizon_seconds")
			// The clock runs on between the two reads: a second is far
			// more than that, far less than any error in the horizon.
			assert.InDelta(t, want, got, 1)
			if tc.layout == passed {
				assert.Negative(t, got)
			}
			clock.Add(24 * time.Hour)
			assert.InDelta(t, want-86_400, gauge(t, srv, "snowidd_layout_horizon_seconds"), 1, "read at each scrape")
			clock.Add(-24 * time.Hour)
		})
	}
	// The default layout's horizon, 2093-09-06T15:47:35.552Z, from the
	// test clock's 2025-06-01T12:00:00Z: 24,934 days 3 h 47 min 35.552 s.
	srv, err := server.New(server.Config{Now: clock.Now})
	require.NoError(t, err)
	want := float64(24_934*86_400 + 3*3600 + 47*60 + 35.552)
	assert.InDelta(t, want, gauge(t, srv, "snowidd_layout_horizon_seconds"), 1)
}

// gauge reads one unlabelled gauge from srv's registry.
func gauge(t *testing.T, srv *server.Server, name string) float64 {
	t.Helper()
	mfs, err := srv.Registry().Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			require.Len(t, mf.GetMetric(), 1)
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s among %d", name, len(mfs))
	return 0
}

func TestNewRefusesNegativeClockMaxError(t *testing.T) {
	_, err := server.New(server.Config{ClockMaxError: -time.Second})
	require.ErrorIs(t, err, snowlab.ErrInvalidConfig)
	assert.True(t, strings.Contains(err.Error(), "-1s"), "%v", err)
}
