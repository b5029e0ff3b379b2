//go:build !linux

package zklease

import "syscall"

// dieWithParent: only Linux has a parent-death signal; elsewhere the
// test's cleanup stops the servers.
func dieWithParent() *syscall.SysProcAttr { return nil }
