package daemon

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/client"
)

// restartWindow is the -window of the restart test's first replica: on
// static:N a monotonic replica's lead is the smaller of it and
// nodeid.StaticMaxLead (100 ms).
const restartWindow = 3 * time.Second

// restartLayout holds 4 IDs a tick, so that a call for restartBatch IDs
// spends 250 ms of ticks: the replica runs ahead of its clock whenever
// its clients get more than 4,000 IDs a second. On the default layout
// (4,096 IDs a tick, 24 ms of ticks a call of 100,000) it had to mint
// more than 4 million a second, and at load average 30 it fell behind
// instead (its lead -2.8 s after 20 s, 2 runs of 3).
//
// restartCalls is how many calls the test makes at most while waiting
// for the lead: 40 s of ticks, 200 times the lead it waits for.
const (
	restartLayout = "41/20/2"
	restartBatch  = 1000
	restartCalls  = 160
)

// TestStaticMonotonicRestart SIGKILLs a monotonic replica on a static
// node id (-window 3s) while clients drive it at full speed,
// NextIDs(1000) after NextIDs(1000) (250 ms of ticks a call on
// restartLayout, far more than the clock advances meanwhile, so its IDs
// run ahead of the clock), and restarts it at once on the same node id
// with -window 10ms and -policy strict: the restarted replica must hand
// out nothing at or below the last ID its predecessor handed out. Before
// nodeid.StaticConfig it started at the clock, under the time its
// predecessor had already spent, and repeated those IDs; while each start
// covered only its own lead, a replica restarted with a shorter -window or
// -policy strict did. (nodeid's TestStaticConfigRestartAnyPolicy proves
// the fence on a scripted clock; this is the daemon's wiring of it, end
// to end.)
func TestStaticMonotonicRestart(t *testing.T) {
	r := startReplica(t, "127.0.0.1:0", "-lease", "static:9", "-policy", "monotonic", "-window", restartWindow.String(), "-layout", restartLayout)
	var layout snowlab.Layout
	require.NoError(t, layout.UnmarshalText([]byte(restartLayout)))
	waitFor(t, "the replica ready", ready(t, r.url()))

	// Drive it at full speed.
	var last atomic.Int64    // the highest ID handed out
	var batches atomic.Int64 // calls answered
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		c, err := client.New(client.Config{Targets: []string{r.url()}, Rounds: 1, AttemptTimeout: 5 * time.Second})
		require.NoError(t, err)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ids, err := c.NextIDs(context.Background(), restartBatch)
				if err != nil {
					continue // killed under the call: stop comes next
				}
				batches.Add(1)
				for id := int64(ids[len(ids)-1]); ; {
					cur := last.Load()
					if id <= cur || last.CompareAndSwap(cur, id) {
						break
					}
				}
			}
		})
	}
	lead := func() time.Duration { return time.Until(layout.Decode(snowlab.ID(last.Load())).Time) }
	waitFor(t, "a batch of IDs from the replica", func() (bool, string) { return last.Load() != 0, "none yet" })
	// Half its lead ahead of the clock, or as far as restartCalls calls
	// take it: a machine too busy for the replica to run ahead (the race
	// detector under load) still checks the restart, with less at stake.
	// (The give-up was 10 s of the real clock before: a count of calls
	// means the same on a quiet machine and a loaded one.)
	from := batches.Load()
	waitFor(t, "the replica ahead of its clock, or restartCalls calls", func() (bool, string) {
		n := batches.Load() - from
		return lead() >= nodeid.StaticMaxLead/2 || n >= restartCalls, fmt.Sprintf("%d calls, lead %v", n, lead())
	})
	t.Logf("killed with the replica's IDs %v ahead of the clock", lead().Round(time.Millisecond))
	r.kill()
	close(stop)
	wg.Wait()
	before := snowlab.ID(last.Load())

	r.args = []string{"-lease", "static:9", "-policy", "strict", "-window", "10ms", "-layout", restartLayout}
	r.start()
	waitFor(t, "the restarted replica ready", ready(t, r.url()))
	c, err := client.New(client.Config{Targets: []string{r.url()}, Rounds: 1})
	require.NoError(t, err)
	// It starts a window ahead of its clock, its lead's bound: a call is
	// refused until the clock has moved on by the ticks it needs.
	var ids []snowlab.ID
	waitFor(t, "the restarted replica's first IDs", func() (bool, string) {
		ids, err = c.NextIDs(context.Background(), restartBatch)
		return err == nil, fmt.Sprint(err)
	})
	repeats := 0
	for _, id := range ids {
		if id <= before {
			repeats++
		}
	}
	require.Zero(t, repeats, "the restarted replica handed out %d of %d IDs at or below its predecessor's last, %d (%v); its first is %d (%v)",
		repeats, len(ids), before, layout.Decode(before).Time.UTC(), ids[0], layout.Decode(ids[0]).Time.UTC())
}
