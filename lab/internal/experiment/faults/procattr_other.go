//go:build !linux

package faults

import "syscall"

// dieWithParent is Linux's parent-death signal elsewhere: none, the rig
// stops its children itself.
func dieWithParent() *syscall.SysProcAttr { return nil }
