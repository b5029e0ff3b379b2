package clocksrc_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/snowlab/snowlab/clocksrc"
)

// These are sanity bounds against the host's clocks, not speed checks: 50 ms
// is far more than a read costs, even under the race detector, and far less
// than any mistake in an offset would show.
const hostSlack = 50 * time.Millisecond

func near(t *testing.T, got int64, what string) {
	t.Helper()
	now := time.Now().UnixNano()
	assert.InDelta(t, now, got, float64(hostSlack), "%s is %v from time.Now", what, time.Duration(got-now))
}

func TestRealtime(t *testing.T) {
	c := clocksrc.Realtime()
	for range 100 {
		near(t, c.UnixNano(), "Realtime")
	}
}

func TestMonotonic(t *testing.T) {
	c := clocksrc.Monotonic()
	near(t, c.UnixNano(), "Monotonic at creation")
	checkNonDecreasing(t, c, 10_000)
	near(t, c.UnixNano(), "Monotonic after 10,000 reads")
}

func TestDefault(t *testing.T) {
	c := clocksrc.Default()
	near(t, c.UnixNano(), "Default at creation")
	checkNonDecreasing(t, c, 100_000)
	near(t, c.UnixNano(), "Default after 100,000 reads")
}

func checkNonDecreasing(t *testing.T, c clocksrc.Clock, n int) {
	t.Helper()
	prev := c.UnixNano()
	for i := range n {
		v := c.UnixNano()
		if v < prev {
			t.Fatalf("read %d: clock went back %d ns", i, prev-v)
		}
		if i%10_000 == 0 {
			near(t, v, "clock")
		}
		prev = v
	}
}
