package clocksrc_test

import (
	"testing"
	"time"

	"github.com/snowlab/snowlab/clocksrc"
)

// These are sanity bounds against the host's clocks, not speed checks.
// Each read is taken between two readings of time.Now and checked against
// them, so the time it took (any length on a loaded machine) is measured,
// not assumed. Beyond that a clock may be off by:
//   - the spread of the sample its anchor was taken from (Monotonic's at
//     creation, Default's at creation and at each resync): a sample is off
//     by at most the time the call that took it lasted, which the check
//     measures as loose;
//   - hostSlack: CLOCK_MONOTONIC drifting from CLOCK_REALTIME while NTP
//     slews it, at most 500 ppm (0.5 ms a second of the test), and far
//     less than any mistake in an offset would show.
//
// Before, a read was compared with one time.Now taken after it within
// 50 ms: a test preempted between the two for longer failed.
const hostSlack = 50 * time.Millisecond

// hostCheck reads a clock and checks each reading against time.Now.
type hostCheck struct {
	t     *testing.T
	c     clocksrc.Clock
	loose time.Duration // the longest call that may have sampled the wall clock for c
}

// newCheck makes a clock with mk, measuring how long that took.
func newCheck(t *testing.T, mk func() clocksrc.Clock) *hostCheck {
	before := time.Now()
	c := mk()
	return &hostCheck{t: t, c: c, loose: time.Since(before)}
}

// read reads the clock once and fails the test unless the reading lies
// between the time.Now readings around it, give or take loose (which a
// call this long may have become, by resyncing) and hostSlack.
func (h *hostCheck) read(what string) int64 {
	h.t.Helper()
	before := time.Now()
	v := h.c.UnixNano()
	after := time.Now()
	h.loose = max(h.loose, after.Sub(before))
	slack := int64(h.loose + hostSlack)
	if lo, hi := before.UnixNano()-slack, after.UnixNano()+slack; v < lo || v > hi {
		h.t.Fatalf("%s read %v, time.Now %v and %v around it (slack %v)", what,
			time.Unix(0, v).UTC(), before.UTC(), after.UTC(), time.Duration(slack))
	}
	return v
}

func TestRealtime(t *testing.T) {
	h := newCheck(t, clocksrc.Realtime)
	for range 100 {
		h.read("Realtime")
	}
}

func TestMonotonic(t *testing.T) {
	h := newCheck(t, clocksrc.Monotonic)
	h.read("Monotonic at creation")
	checkNonDecreasing(h, 10_000)
	h.read("Monotonic after 10,000 reads")
}

func TestDefault(t *testing.T) {
	h := newCheck(t, clocksrc.Default)
	h.read("Default at creation")
	checkNonDecreasing(h, 100_000)
	h.read("Default after 100,000 reads")
}

// checkNonDecreasing reads h's clock n times, checking each reading.
func checkNonDecreasing(h *hostCheck, n int) {
	h.t.Helper()
	prev := h.read("clock")
	for i := range n {
		v := h.read("clock")
		if v < prev {
			h.t.Fatalf("read %d: clock went back %d ns", i, prev-v)
		}
		prev = v
	}
}
