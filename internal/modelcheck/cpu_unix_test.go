//go:build unix

package modelcheck

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the test process has used:
// what a search costs, whatever else shares the machine.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
