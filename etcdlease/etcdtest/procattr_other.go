//go:build !linux

package etcdtest

import "syscall"

// dieWithParent has nothing to ask for outside Linux: Stop ends the server.
func dieWithParent() *syscall.SysProcAttr { return nil }
