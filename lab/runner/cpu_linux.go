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

// pin binds the calling thread to the k-th CPU (modulo their count) of
// those the process may run on, and returns what undoes it; where the
// affinity cannot be read or set it does nothing.
func pin(k int) (restore func()) {
	var orig unix.CPUSet
	if unix.SchedGetaffinity(0, &orig) != nil || orig.Count() == 0 {
		return func() {}
	}
	var cpus []int
	for c := 0; c < len(orig)*64 && len(cpus) < orig.Count(); c++ {
		if orig.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	var one unix.CPUSet
	one.Set(cpus[k%len(cpus)])
	if unix.SchedSetaffinity(0, &one) != nil {
		return func() {}
	}
	return func() { unix.SchedSetaffinity(0, &orig) }
}
