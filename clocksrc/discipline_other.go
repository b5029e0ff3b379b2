//go:build !linux

package clocksrc

import (
	"errors"
	"runtime"
)

// systemKernel reports that the kernel's clock discipline is unknown:
// only Linux's adjtimex is read (macOS's ntp_adjtime and Windows'
// GetSystemTimeAdjustment say less, in other terms), and a guess would be
// worse than nothing.
type systemKernel struct{}

func (systemKernel) readTimex() (timex, error) {
	return timex{}, errors.New("the kernel's clock discipline is read on Linux only (adjtimex), not on " + runtime.GOOS)
}
