package runner

import "golang.org/x/sys/unix"

// threadCPU is the calling thread's CPU time in nanoseconds, -1 where it
// cannot be read.
func threadCPU() int64 { return clockNS(unix.CLOCK_THREAD_CPUTIME_ID) }

// processCPU is the process's CPU time, every thread's, in nanoseconds,
// -1 where it cannot be read.
func processCPU() int64 { return clockNS(unix.CLOCK_PROCESS_CPUTIME_ID) }

func clockNS(id int32) int64 {
	var ts unix.Timespec
	if unix.ClockGettime(id, &ts) != nil {
		return -1
	}
	return ts.Nano()
}
