//go:build snowidd_faults

package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/client"
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
	// The replica's clock read between two readings of this process's,
	// against them: the time the call took is measured, not assumed (a
	// loaded machine can hold a call for more than the second of slack
	// given to the two clocks' difference).
	stepped := func(want time.Duration) {
		t.Helper()
		before := time.Now()
		c := clockOf(t, d.url)
		after := time.Now()
		assert.True(t, !c.Before(before.Add(want-time.Second)) && !c.After(after.Add(want+time.Second)),
			"the replica's clock %v, want %v ahead of %v..%v, give or take a second", c, want, before, after)
	}
	require.Equal(t, http.StatusOK, post("10s"))
	stepped(10 * time.Second)
	require.Equal(t, http.StatusOK, post("-12s"))
	stepped(-2 * time.Second)
	assert.Equal(t, http.StatusBadRequest, post("soon"))
	assert.Equal(t, 0, d.stop(t), d.log.String())
}

// holdState reads a replica's GET FaultHoldPath.
func holdState(t *testing.T, url string) faultHoldAnswer {
	t.Helper()
	resp, err := http.Get(url + FaultHoldPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	var a faultHoldAnswer
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	return a
}

// In the fault-injection build a POST to FaultHoldPath holds the next
// NextIDs answer under FaultHeldPrefix, its IDs already minted
// (snowidd_ids_issued_total counts them), until the caller gives up; a
// call outside the prefix, and the call after the held one, are not
// held; a hold that is no positive duration is 400.
func TestFaultHoldsOneAnswer(t *testing.T) {
	d := startDaemonWith(t, systemHooks(), "-lease", "static:1")
	waitFor(t, "ready", ready(t, d.url))
	post := func(q string) int {
		resp, err := http.Post(d.url+FaultHoldPath+"?for="+q, "", nil)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusBadRequest, post("soon"))
	assert.Equal(t, http.StatusBadRequest, post("0s"))
	assert.Equal(t, faultHoldAnswer{}, holdState(t, d.url))
	require.Equal(t, http.StatusOK, post("1h"))
	assert.Equal(t, faultHoldAnswer{Armed: true}, holdState(t, d.url))

	plain, err := client.New(client.Config{Targets: []string{d.url}, Rounds: 1})
	require.NoError(t, err)
	ids, err := plain.NextIDs(t.Context(), 10)
	require.NoError(t, err, "a call outside the prefix is not held")
	assert.Len(t, ids, 10)
	assert.Equal(t, faultHoldAnswer{Armed: true}, holdState(t, d.url))

	cl, err := client.New(client.Config{Targets: []string{d.url + FaultHeldPrefix}, Rounds: 1})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cl.NextIDs(ctx, 1000)
		done <- err
	}()
	holding := func(want bool) func() (bool, string) {
		return func() (bool, string) {
			a := holdState(t, d.url)
			return a.Holding == want, fmt.Sprintf("%+v", a)
		}
	}
	waitFor(t, "an answer held", holding(true))
	issued := regexp.MustCompile(`(?m)^snowidd_ids_issued_total .*$`)
	assert.Equal(t, "snowidd_ids_issued_total 1010", issued.FindString(metrics(t, d.url)), "minted before the hold")
	select {
	case err := <-done:
		t.Fatalf("the held call returned: %v", err)
	default:
	}
	cancel()
	require.Error(t, <-done, "the held call, given up")
	waitFor(t, "the hold ended with its caller", holding(false))
	ids, err = cl.NextIDs(t.Context(), 10)
	require.NoError(t, err, "the next call is not held")
	assert.Len(t, ids, 10)
	assert.Equal(t, faultHoldAnswer{}, holdState(t, d.url))
	assert.Equal(t, 0, d.stop(t), d.log.String())
}
