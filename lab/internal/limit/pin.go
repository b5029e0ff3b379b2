package limit

import _ "unsafe" // for go:linkname

// procPin pins the goroutine to its P and returns the P's index, as
// shardedgen's does; the pin is released at once, because the words are
// atomic and stay correct if the goroutine then moves.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// Now returns the runtime's monotonic clock in nanoseconds since an
// arbitrary origin: CLOCK_MONOTONIC through the vDSO, the same reading
// time.Since uses, without building a time.Time. The workloads time each
// call and pace each arrival on it, so the reading must cost as little
// as the calls it times, and NTP cannot step it. (The library binds the
// same function in its own internal/mono: a binding is one declaration
// per module, as procPin's, rather than an API the library would export.)
//
//go:linkname Now runtime.nanotime
func Now() int64
