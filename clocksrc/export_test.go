package clocksrc

import "github.com/snowlab/snowlab/internal/anchor"

// NewAnchored and NewMonotonic build Default's and Monotonic's clocks on
// scripted monotonic and wall clocks, for the tests of other packages'
// generators run on them (leap_test.go).
func NewAnchored(monoNow, wallNow func() int64) Clock {
	return anchor.New(monoNow, wallNow, DefaultResync)
}

func NewMonotonic(monoNow, wallNow func() int64) Clock { return newMonotonic(monoNow, wallNow) }
