package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// Affinity is the CPUs the calling thread may run on, which is the
// process's unless something set one thread's alone; nil where it cannot
// be read.
func Affinity() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for i := range maxCPUs {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// maxCPUs is how many CPUs a unix.CPUSet holds.
const maxCPUs = len(unix.CPUSet{}) * strconv.IntSize

// SetAffinity binds every thread of the process to cpus (threads started
// later inherit it from the one that starts them). It fails naming the
// CPUs when the kernel refuses them, for example when none of them is
// online or allowed.
func SetAffinity(cpus []int) error {
	set, err := cpuSet(cpus)
	if err != nil {
		return err
	}
	tids, err := Threads()
	if err != nil {
		return err
	}
	for _, tid := range tids {
		if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("CPUs %v: %w (this process may run on %v)", cpus, err, Affinity())
		}
	}
	return nil
}

// Threads returns the ids of this process's threads, ascending, from
// /proc/self/task.
func Threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("listing threads: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if t, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, t)
		}
	}
	slices.Sort(tids)
	return tids, nil
}

func cpuSet(cpus []int) (*unix.CPUSet, error) {
	if len(cpus) == 0 {
		return nil, errors.New("no CPU given")
	}
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 || c >= maxCPUs {
			return nil, fmt.Errorf("CPU %d: want 0 to %d", c, maxCPUs-1)
		}
		set.Set(c)
	}
	return &set, nil
}

// StartOn starts cmd bound to cpus, as taskset would: the child is forked
// from a thread bound to them, so every thread it ever starts inherits
// the binding (binding a started process's threads one by one races with
// the threads its runtime is starting). This process's own binding is
// unchanged: the thread is a goroutine's of its own, and when its binding
// cannot be put back that goroutine exits still locked to it, which ends
// the thread rather than hand it back to the scheduler on cpus.
func StartOn(cmd *exec.Cmd, cpus []int) error {
	done := make(chan error, 1)
	go func() {
		restore, err := BindThread(cpus)
		if err != nil {
			done <- err
			return
		}
		err = cmd.Start()
		if rerr := restore(); rerr != nil && err == nil {
			err = fmt.Errorf("restoring this thread's CPUs after starting %s: %w", cmd.Path, rerr)
		}
		done <- err
	}()
	return <-done
}

// BindThread locks the calling goroutine to its thread and binds the
// thread to cpus (runtime.LockOSThread, then sched_setaffinity), so that
// the goroutine runs there and nowhere else. restore puts the thread's
// CPUs back and unlocks it; where they cannot be put back it fails and
// leaves the goroutine locked, so that its thread ends with it rather
// than return to the scheduler bound to those CPUs.
func BindThread(cpus []int) (restore func() error, err error) {
	set, err := cpuSet(cpus)
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
		return nil, fmt.Errorf("CPUs %v: %w (this process may run on %v)", cpus, err, Affinity())
	}
	return func() error {
		if err := unix.SchedSetaffinity(0, &was); err != nil {
			return err
		}
		runtime.UnlockOSThread()
		return nil
	}, nil
}
