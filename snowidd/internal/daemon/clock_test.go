package daemon

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// scriptedKernel is the kernel's answer as the test sets it.
type scriptedKernel struct {
	k atomic.Pointer[clocksrc.Kernel]
}

func (s *scriptedKernel) set(k clocksrc.Kernel) { s.k.Store(&k) }
func (s *scriptedKernel) read() clocksrc.Kernel { return *s.k.Load() }

var (
	synced   = clocksrc.Kernel{Known: true, Synchronized: true, State: clocksrc.TimeOK, Status: clocksrc.StaPLL, MaxError: 12 * time.Millisecond}
	unsynced = clocksrc.Kernel{Known: true, State: clocksrc.TimeError, Status: clocksrc.StaUnsync, MaxError: 16 * time.Second}
)

// metrics fetches /metrics.
func metrics(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// With -clock-max-error, a replica on a clock the kernel calls
// unsynchronized serves, not ready, says why, and turns ready when the
// kernel vouches for the clock; the gauges follow the kernel.
func TestClockMaxError(t *testing.T) {
	kernel := &scriptedKernel{}
	kernel.set(unsynced)
	d := startDaemonOn(t, kernel.read, "-lease", "static:3", "-clock-max-error", "50ms")
	assert.Contains(t, d.log.String(), "the kernel reports the clock unsynchronized")

	// The replica serves before its generator is installed, and /readyz
	// says "no lease acquired yet" until it is: wait for the clock's word.
	const clockWord = "not ready: the clock is not synchronized: the kernel reports TIME_ERROR, status UNSYNC, maximum error 16s\n"
	end := testend.Context(t)
	waitFor(t, "the clock holds readiness", func() (bool, string) {
		code, body := readyz(end, d.url)
		return code == http.StatusServiceUnavailable && body == clockWord, fmt.Sprintf("%d %s", code, body)
	})
	m := metrics(t, d.url)
	assert.Contains(t, m, "\nsnowidd_clock_synchronized 0\n")
	assert.Contains(t, m, "\nsnowidd_clock_max_error_seconds 16\n")
	assert.Contains(t, m, "\nsnowidd_ready 0\n")

	kernel.set(synced)
	waitFor(t, "ready once synchronized", ready(t, d.url))
	m = metrics(t, d.url)
	assert.Contains(t, m, "\nsnowidd_clock_synchronized 1\n")
	assert.Contains(t, m, "\nsnowidd_clock_max_error_seconds 0.012\n")
	assert.Contains(t, m, "\nsnowidd_clock_leap_pending 0\n")

	kernel.set(clocksrc.Kernel{Known: true, Synchronized: true, State: clocksrc.TimeOK, MaxError: 80 * time.Millisecond})
	code, body := readyz(end, d.url)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "the clock's maximum error 80ms is above the bound of 50ms")
	assert.Equal(t, 0, d.stop(t), d.log.String())
}

// Off by default: an unsynchronized clock is logged and exported, and
// holds nothing.
func TestClockCheckOffByDefault(t *testing.T) {
	kernel := &scriptedKernel{}
	kernel.set(unsynced)
	d := startDaemonOn(t, kernel.read, "-lease", "static:3")
	waitFor(t, "ready", ready(t, d.url))
	assert.Contains(t, metrics(t, d.url), "\nsnowidd_clock_synchronized 0\n")
	assert.Regexp(t, `level=WARN msg="the kernel reports the clock unsynchronized.*clock_check=off`, d.log.String())
}

// A clock check on a system whose kernel does not say can never pass: it
// is refused at start, one line, exit 2.
func TestClockMaxErrorNeedsTheKernel(t *testing.T) {
	unknown := func() clocksrc.Kernel {
		return clocksrc.Kernel{Reason: "the kernel's clock discipline is read on Linux only (adjtimex), not on darwin"}
	}
	var log strings.Builder
	code := run(testend.Context(t), []string{"-listen", "127.0.0.1:0", "-lease", "static:1", "-clock-max-error", "100ms"}, func(string) (string, bool) { return "", false }, &log, hooks{readKernel: unknown})
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "snowidd: -clock-max-error 100ms: the kernel does not report its clock discipline here (the kernel's clock discipline is read on Linux only (adjtimex), not on darwin)\n", log.String())

	// Without the check the replica serves, its clock gauges absent.
	d := startDaemonOn(t, unknown, "-lease", "static:1")
	waitFor(t, "ready", ready(t, d.url))
	m := metrics(t, d.url)
	assert.NotContains(t, m, "snowidd_clock_synchronized")
	assert.Contains(t, d.log.String(), "the kernel's clock discipline is unknown")
}

// The start warns when the layout's horizon is less than -horizon-warn
// away (two years by default), and /metrics says how far it is. (A
// horizon passed is refused at start: TestLayoutWindowRefusedAtStart.)
func TestHorizonWarning(t *testing.T) {
	now := time.Now().UTC()
	// 35 bits of milliseconds last 397.7 days.
	recent := now.Add(-100 * 24 * time.Hour).Format(time.RFC3339)
	warned := regexp.MustCompile(`level=WARN msg="the layout's horizon is near.*years_left=(\S+)`)
	passed := regexp.MustCompile(`level=ERROR msg="not ready: the clock is outside the layout's window`)
	for _, tc := range []struct {
		name   string
		args   []string
		layout snowlab.Layout
		warn   *regexp.Regexp // nil: neither line
	}{
		{"default layout", nil, snowlab.DefaultLayout, nil},
		{"397 days from 100 days ago", []string{"-layout", "35/16/12", "-epoch", recent}, short(recent), warned},
		{"the same under -horizon-warn 200h", []string{"-layout", "35/16/12", "-epoch", recent, "-horizon-warn", "200h"}, short(recent), nil},
		{"default layout under -horizon-warn 100 years", []string{"-horizon-warn", "876582h"}, snowlab.DefaultLayout, warned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDaemon(t, append([]string{"-lease", "static:2"}, tc.args...)...)
			log := d.log.String()
			for _, re := range []*regexp.Regexp{warned, passed} {
				if re == tc.warn {
					assert.Regexp(t, re, log)
				} else {
					assert.NotRegexp(t, re, log)
				}
			}
			left := tc.layout.TimeLeft(time.Now())
			if tc.warn == warned {
				years, err := strconv.ParseFloat(warned.FindStringSubmatch(log)[1], 64)
				require.NoError(t, err)
				assert.InDelta(t, left.Hours()/24/365.2425, years, 0.01)
			}
			line := regexp.MustCompile(`\nsnowidd_layout_horizon_seconds (\S+)\n`).FindStringSubmatch(metrics(t, d.url))
			require.NotNil(t, line, "snowidd_layout_horizon_seconds")
			got, err := strconv.ParseFloat(line[1], 64)
			require.NoError(t, err)
			assert.InDelta(t, left.Seconds(), got, 60)
			assert.Equal(t, 0, d.stop(t), d.log.String())
		})
	}
}

// short is the layout of -layout 35/16/12 -epoch epoch: 397.7 days.
func short(epoch string) snowlab.Layout {
	e, err := time.Parse(time.RFC3339, epoch)
	if err != nil {
		panic(err)
	}
	return snowlab.Layout{TimeBits: 35, NodeBits: 16, SeqBits: 12, Unit: time.Millisecond, Epoch: e}
}
