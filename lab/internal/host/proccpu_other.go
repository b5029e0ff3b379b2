//go:build !linux

package host

import "time"

// ProcessCPU is not read here: ok is false.
func ProcessCPU(pid int) (cpu time.Duration, ok bool) { return 0, false }
