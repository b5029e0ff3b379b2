package benchgen

import _ "unsafe" // for go:linkname

// procPin pins the goroutine to its P and returns the P's index, as
// shardedgen's does; the pin is released at once, because the words are
// atomic and stay correct if the goroutine then moves.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
