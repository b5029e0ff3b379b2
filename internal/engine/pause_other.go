//go:build !linux

package engine

import "time"

// nanosleep sleeps about d nanoseconds. golang.org/x/sys has no nanosleep
// on this system (macOS, Windows): the runtime's timer is the portable
// equivalent, which may round a sub-millisecond sleep up.
func nanosleep(d int64) { time.Sleep(time.Duration(d)) }
