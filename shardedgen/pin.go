package shardedgen

import _ "unsafe" // for go:linkname

// procPin pins the goroutine to its P and returns the P's index; it costs a
// few nanoseconds. The index picks a shard; the pin is released at once,
// because shards are atomic and stay correct if the goroutine then moves.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
