// Package mono reads the runtime's monotonic clock: CLOCK_MONOTONIC through
// the vDSO, the same reading time.Since uses, without building a time.Time.
// It is the one clock in this module that NTP cannot step, so every deadline
// is measured on it.
package mono

import _ "unsafe" // for go:linkname

// Now returns monotonic nanoseconds since an arbitrary origin.
//
//go:linkname Now runtime.nanotime
func Now() int64
