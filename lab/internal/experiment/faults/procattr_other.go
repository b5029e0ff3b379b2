//go:build !linux

package faults

import "syscall"

// dieWithParent has nothing to ask for outside Linux: Stop ends a child.
func dieWithParent() *syscall.SysProcAttr { return nil }
