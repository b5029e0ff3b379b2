package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/client"
)

// TestMonotonicLeaseAtFullSpeed drives a monotonic replica on a dir lease
// with a 300 ms window at full speed, 40 NextIDs(100000) in a row: 4 M
// IDs, 977 ms of ticks, far more than the clock advances meanwhile. Its
// lead is bounded by half the window, so calls wait for the clock rather
// than run into the reservation: none is refused. With an unbounded lead
// the IDs reached the reservation (300 ms ahead, renewed every 100 ms)
// and the calls were refused Unavailable (ErrNoReservation).
func TestMonotonicLeaseAtFullSpeed(t *testing.T) {
	const window = 300 * time.Millisecond
	r := startReplica(t, "127.0.0.1:0", "-lease", "dir:"+t.TempDir(), "-policy", "monotonic", "-window", window.String())
	waitFor(t, 10*time.Second, "the replica ready", ready(r.url()))
	c, err := client.New(client.Config{Targets: []string{r.url()}, Rounds: 1, AttemptTimeout: 5 * time.Second})
	require.NoError(t, err)
	var maxLead time.Duration
	for i := range 40 {
		ids, err := c.NextIDs(context.Background(), 100_000)
		require.NoError(t, err, "call %d of 40, lead so far at most %v", i+1, maxLead)
		maxLead = max(maxLead, time.Until(snowlab.DefaultLayout.Decode(ids[len(ids)-1]).Time))
	}
	require.Less(t, maxLead, window, "the lead stays inside the reservation")
}
