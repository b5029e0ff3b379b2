package zklease

import "syscall"

// dieWithParent has the kernel kill a ZooKeeper server when the test
// process ends, however it ends (a timeout's panic, a SIGKILL): a JVM
// left behind holds its ports and about 130 MB, and spins its CPU on the
// next run's machine.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
