package hog

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill the child when the thread that
// starts it exits, so that a lab killed with SIGKILL leaves no hog.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
