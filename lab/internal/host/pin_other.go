//go:build !linux

package host

import (
	"fmt"
	"runtime"
)

// PinThread refuses: threads are bound to CPUs on Linux only here.
func PinThread(cpu int) (unpin func(), err error) {
	return nil, fmt.Errorf("CPU %d: %w (this is %s)", cpu, errNoAffinity, runtime.GOOS)
}
