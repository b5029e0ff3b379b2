package faults

import "syscall"

// dieWithParent makes a child the rig starts (etcd, snowidd) die with the
// process that started it, so that none outlives a lab killed mid-run.
func dieWithParent() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
