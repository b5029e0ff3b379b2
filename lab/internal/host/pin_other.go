//go:build !linux

package host

import (
	"fmt"
	"runtime"
)

// PinThread refuses: threads are bound to CPUs on Linux only here.
func PinThread(cpu int) (unpin func(), err error) {
	return nil, fmt.Errorf("%w on CPU %d: %w (this is %s)", ErrCannotPlace, cpu, errNoAffinity, runtime.GOOS)
}
