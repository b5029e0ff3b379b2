//go:build !linux

package host

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
)

// errNoAffinity is why SetAffinity fails where CPU affinity cannot be set.
var errNoAffinity = errors.New("CPU affinity is set on Linux only")

// Affinity is not read here.
func Affinity() []int { return nil }

// SetAffinity refuses: only Linux binds a whole process to CPUs here.
func SetAffinity(cpus []int) error {
	return fmt.Errorf("CPUs %v: %w (this is %s)", cpus, errNoAffinity, runtime.GOOS)
}

// StartOn refuses, as SetAffinity does.
func StartOn(_ *exec.Cmd, cpus []int) error {
	return fmt.Errorf("CPUs %v: %w (this is %s)", cpus, errNoAffinity, runtime.GOOS)
}

// BindThread refuses: threads are bound to CPUs on Linux only here.
func BindThread(cpus []int) (restore func() error, err error) {
	return nil, fmt.Errorf("CPUs %v: %w (this is %s)", cpus, errNoAffinity, runtime.GOOS)
}
