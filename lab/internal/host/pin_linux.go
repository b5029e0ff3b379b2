package host

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// PinThread locks the calling goroutine to its thread and binds that
// thread to cpu alone (runtime.LockOSThread, then sched_setaffinity), so
// that the goroutine runs on cpu and nowhere else. unpin puts the
// thread's CPUs back and unlocks it; where they cannot be put back the
// goroutine stays locked, so that its thread ends with it rather than
// return to the scheduler bound to one CPU.
func PinThread(cpu int) (unpin func(), err error) {
	set, err := cpuSet([]int{cpu})
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	var was unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	if err := unix.SchedSetaffinity(0, set); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("CPU %d: %w (this process may run on %v)", cpu, err, Affinity())
	}
	return func() {
		if unix.SchedSetaffinity(0, &was) == nil {
			runtime.UnlockOSThread()
		}
	}, nil
}
