//go:build snowidd_faults

package daemon

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/server"
)

// clockOf reads a replica's GET /clock.
func clockOf(t *testing.T, url string) time.Time {
	t.Helper()
	resp, err := http.Get(url + server.ClockPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	var a server.ClockAnswer
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	ns, err := strconv.ParseInt(a.UnixNano, 10, 64)
	require.NoError(t, err)
	return time.Unix(0, ns)
}

// In the fault-injection build a POST to FaultClockPath steps the
// replica's clock, which its GET /clock, and so its IDs and lease, read;
// a step that is no duration is 400.
func TestFaultClockSteps(t *testing.T) {
	d := startDaemonWith(t, systemHooks(), "-lease", "static:1")
	assert.Contains(t, d.log.String(), "fault-injection build")
	post := func(step string) int {
		resp, err := http.Post(d.url+FaultClockPath+"?step="+step, "", nil)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, post("10s"))
	assert.InDelta(t, 10, time.Until(clockOf(t, d.url)).Seconds(), 1)
	require.Equal(t, http.StatusOK, post("-12s"))
	assert.InDelta(t, -2, time.Until(clockOf(t, d.url)).Seconds(), 1)
	assert.Equal(t, http.StatusBadRequest, post("soon"))
	assert.Equal(t, 0, d.stop(t), d.log.String())
}
