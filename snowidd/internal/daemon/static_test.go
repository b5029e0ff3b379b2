package daemon

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
)

// TestStaticRestartAnyWindow: a replica on static:N restarted with a
// shorter -window, or -policy strict, after a monotonic one with -window
// 3s that ran as far ahead of the clock as it may, serves nothing at or
// below its predecessor's last ID (snowidd -lease static:3 restarted with
// -window 100ms after -window 3s served IDs its predecessor served). Both
// run in a testing/synctest bubble on a clock that moves with its virtual
// time, so the waits take no real time: the predecessor mints 450,000 IDs
// (110 ticks' worth) and the successor starts at the instant it stopped.
func TestStaticRestartAnyWindow(t *testing.T) {
	for _, next := range []options{
		{policy: snowlab.Strict, window: 100 * time.Millisecond},
		{policy: snowlab.Monotonic, window: 10 * time.Millisecond},
		{policy: snowlab.Monotonic, window: 3 * time.Second},
	} {
		t.Run(next.policy.String()+" "+next.window.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// 2025-06-01T12:00:00Z, then the bubble's virtual time.
				t0 := time.Now()
				clock := clocksrc.Func(func() int64 {
					return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).UnixNano() + int64(time.Since(t0))
				})
				base := options{staticNode: 3, shards: 1, layout: snowlab.DefaultLayout}
				first := base
				first.policy, first.window = snowlab.Monotonic, 3*time.Second
				g, _, err := newStaticGenerator(first, clock)
				require.NoError(t, err)
				buf := make([]snowlab.ID, 450_000)
				n, err := g.NextIDs(buf)
				require.NoError(t, err)
				last := slices.Max(buf[:n])

				second := base
				second.policy, second.window = next.policy, next.window
				g, _, err = newStaticGenerator(second, clock)
				require.NoError(t, err)
				id, err := g.NextID()
				require.NoError(t, err)
				l := snowlab.DefaultLayout
				require.Greater(t, id, last, "the restarted replica's first ID (%v) is not past its predecessor's last (%v; the clock at %v)",
					l.Decode(id), l.Decode(last), time.Unix(0, clock.UnixNano()).UTC())
			})
		})
	}
}
