package clocksrc

import (
	"time"

	"github.com/snowlab/snowlab/internal/anchor"
)

const (
	// DefaultResync is how often Default's clock compares itself with
	// CLOCK_REALTIME. One comparison costs two system-call-priced reads,
	// paid by whichever caller finds it due.
	DefaultResync = 100 * time.Millisecond
	// MaxSlewPPM bounds how fast Default's clock falls back towards a wall
	// clock found behind it: 500 parts per million, the rate ntpd and the
	// kernel's adjtime use, so 1 ms of correction takes 2 s.
	MaxSlewPPM = anchor.MaxSlewPPM
)

// Default returns a fast clock: each read is one vDSO monotonic read plus
// arithmetic. It maps monotonic time onto Unix time through an anchor and
// keeps that anchor close to CLOCK_REALTIME without ever going backwards:
// every DefaultResync it samples the wall clock; a wall clock ahead is
// taken at once, a wall clock behind is slewed towards at MaxSlewPPM. A
// large backward step of the system clock (an hour, say) therefore leaves
// this clock ahead of the wall clock for a long time (an hour of slew takes
// about 83 days); that is the price of never handing a generator a rewind.
//
// Each call returns a new clock with its own anchor; share one between the
// generators of a process if their timestamps should agree to the
// nanosecond.
func Default() Clock { return anchor.New(nil, realtimeNow, DefaultResync) }

// Corrections is what one Default clock has done to follow the wall
// clock since it was made.
type Corrections struct {
	// Running is the monotonic time since the clock was made.
	Running time.Duration
	// Resyncs counts its comparisons with CLOCK_REALTIME, one per
	// DefaultResync while it is read.
	Resyncs uint64
	// ForwardSteps counts the times the wall clock was found ahead and
	// followed at once; Forward is their sum.
	ForwardSteps uint64
	Forward      time.Duration
	// BackwardSteps counts the times the wall clock was found stepped
	// back (behind the clock, and behind where a slew in progress was
	// heading); Backward is their sum.
	BackwardSteps uint64
	Backward      time.Duration
	// SlewLeft is how far the clock is still ahead of the wall clock it
	// last compared itself with: the part of the backward steps not yet
	// slewed off, at MaxSlewPPM.
	SlewLeft time.Duration
}
