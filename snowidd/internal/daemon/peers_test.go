package daemon

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// steppedClock is the machine's clock plus an offset the test steps: the
// scripted clock of one replica, never the machine's.
type steppedClock struct{ offset atomic.Int64 }

func (c *steppedClock) UnixNano() int64      { return time.Now().UnixNano() + c.offset.Load() }
func (c *steppedClock) step(d time.Duration) { c.offset.Add(int64(d)) }
func (c *steppedClock) hooks() hooks         { return hooks{readKernel: clocksrc.ReadKernel, clock: c} }

// peerOffset reads snowidd_clock_peer_offset_seconds{peer} from a
// replica's /metrics, or false while it has no such series.
func peerOffset(t *testing.T, url, peer string) (float64, bool) {
	t.Helper()
	re := regexp.MustCompile(`\nsnowidd_clock_peer_offset_seconds\{peer="` + regexp.QuoteMeta(peer) + `"\} (\S+)\n`)
	m := re.FindStringSubmatch(metrics(t, url))
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return v, true
}

// Three replicas compare clocks: the one whose scripted clock runs 10 s
// ahead sees both peers 10 s behind it and, with -peer-max-offset, holds
// readiness and says why; a replica whose clock is right sees that peer
// 10 s ahead and stays ready, the median of three clocks being its own and
// the other right one's; once the clock is stepped back the replica is
// ready again. Without -peer-max-offset the offsets are exported and hold
// nothing.
func TestPeerClockOffsets(t *testing.T) {
	a := startDaemon(t, "-lease", "static:1")
	b := startDaemon(t, "-lease", "static:2")
	skewed := &steppedClock{}
	skewed.step(10 * time.Second)
	fast := startDaemonWith(t, skewed.hooks(), "-lease", "static:3",
		"-peers", a.url+","+b.url, "-peer-interval", "50ms", "-peer-max-offset", "1s")
	right := startDaemon(t, "-lease", "static:4", "-peers", a.url+","+fast.url, "-peer-interval", "50ms", "-peer-max-offset", "1s")
	lax := startDaemonWith(t, skewed.hooks(), "-lease", "static:5", "-peers", a.url+","+b.url, "-peer-interval", "50ms")

	end := testend.Context(t)
	waitFor(t, "the skewed replica holds readiness", func() (bool, string) {
		code, body := readyz(end, fast.url)
		return code == http.StatusServiceUnavailable && regexp.MustCompile(`the clock is 10\.\d+s \(± \S+\) ahead of the median of 3 clocks`).MatchString(body), fmt.Sprintf("%d %s", code, body)
	})
	for _, peer := range []string{a.url, b.url} {
		// Awaited, not read once: an estimate is forgotten three
		// intervals (150 ms) after its poll, and a loaded machine goes
		// that long without one (this read failed 3 runs of 3 at load
		// average 30).
		waitFor(t, "the skewed replica sees peer "+peer+" 10 s behind", func() (bool, string) {
			off, ok := peerOffset(t, fast.url, peer)
			return ok && off > -10.5 && off < -9.5, fmt.Sprint(off, ok)
		})
	}
	assert.Contains(t, fast.log.String(), "comparing clocks with peers")

	waitFor(t, "the right replica sees the skewed one", func() (bool, string) {
		off, ok := peerOffset(t, right.url, fast.url)
		return ok && off > 9.5 && off < 10.5, fmt.Sprint(off, ok)
	})
	waitFor(t, "the right replica ready", ready(t, right.url))

	// Off by default: exported, not held.
	waitFor(t, "the lax replica exports its offsets", func() (bool, string) {
		off, ok := peerOffset(t, lax.url, a.url)
		return ok && off < -9.5, fmt.Sprint(off, ok)
	})
	code, body := readyz(end, lax.url)
	assert.Equal(t, http.StatusOK, code, body)

	skewed.step(-10 * time.Second)
	waitFor(t, "the replica ready once its clock agrees", ready(t, fast.url))
	for _, d := range []*daemon{a, b, fast, right, lax} {
		assert.Equal(t, 0, d.stop(t), d.log.String())
	}
}

// -peers takes base URLs only; -peer-max-offset needs peers; bad values
// are one line, exit 2.
func TestPeerFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-peers", "127.0.0.1:8080"}, `-peers "127.0.0.1:8080": peer "127.0.0.1:8080": want http://HOST:PORT or https://HOST:PORT`},
		{[]string{"-peers", "http://a:1,ftp://b:2"}, `peer "ftp://b:2"`},
		{[]string{"-peers", "http://a:1/clock"}, `peer "http://a:1/clock"`},
		{[]string{"-peers", "http://u:pw@a:1"}, `want http://HOST:PORT`},
		{[]string{"-peer-max-offset", "1s"}, "-peer-max-offset 1s needs -peers"},
		{[]string{"-peers", "http://a:1", "-peer-max-offset", "-1s"}, "-peer-max-offset -1s: want 0 (off) or more"},
		{[]string{"-peers", "http://a:1", "-peer-interval", "0s"}, "-peer-interval 0s: want more than 0"},
	} {
		_, err := parseOptions(append([]string{"-lease", "static:1"}, tc.args...), func(string) (string, bool) { return "", false }, nil)
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want)
	}
	o, err := parseOptions([]string{"-lease", "static:1", "-peers", " http://a:1/, https://b:2 "}, func(string) (string, bool) { return "", false }, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"http://a:1", "https://b:2"}, o.peers)
	assert.Zero(t, o.peerMaxOffset, "the peer check is off by default")
}

// A build without the snowidd_faults tag has no way to step its clock.
func TestNoFaultClockInProduction(t *testing.T) {
	if systemHooks().wrap != nil {
		t.Skip("this is the fault-injection build")
	}
	d := startDaemon(t, "-lease", "static:1")
	resp, err := http.Post(d.url+"/fault/clock?step=10s", "", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}
