//go:build unix

package workload

import "syscall"

// processCPU is the CPU time the whole process has used, user and system,
// in nanoseconds; ok is false where the system cannot say.
func processCPU() (ns int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
