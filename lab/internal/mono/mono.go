// Package mono reads the runtime's monotonic clock: CLOCK_MONOTONIC through
// the vDSO, the same reading time.Since uses, without building a time.Time.
// The workloads time each call and pace each arrival on it, so the reading
// must cost as little as the calls it times, and NTP cannot step it.
//
// The library binds the same runtime function in its own internal/mono;
// a binding is one declaration per module, as each package that needs
// runtime.procPin binds it, rather than an API the library would export.
package mono

import _ "unsafe" // for go:linkname

// Now returns monotonic nanoseconds since an arbitrary origin.
//
//go:linkname Now runtime.nanotime
func Now() int64
