package etcdtest

import "syscall"

// dieWithParent has the kernel kill the server when the test process ends.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
