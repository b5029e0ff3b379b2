package faults

import "syscall"

// dieWithParent has the kernel kill a child when the lab ends.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
