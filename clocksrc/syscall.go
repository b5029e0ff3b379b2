package clocksrc

import "github.com/snowlab/snowlab/internal/anchor"

// Realtime reads CLOCK_REALTIME through a system call on every read. It
// follows every correction of the wall clock, backwards included. Where
// there is no clock_gettime (Windows, and the systems other than Linux and
// macOS) it reads time.Now's wall clock instead.
func Realtime() Clock { return realtime{} }

type realtime struct{}

func (realtime) UnixNano() int64 { return realtimeNow() }

// Monotonic reads CLOCK_MONOTONIC through a system call on every read and
// maps it onto Unix time through one anchor taken now. It never goes back
// and never follows a later correction of the wall clock. Where there is no
// clock_gettime it reads the runtime's monotonic clock instead.
func Monotonic() Clock { return newMonotonic(syscallMonotonic, realtimeNow) }

func newMonotonic(monoNow, wallNow func() int64) monotonic {
	return monotonic{mono: monoNow, offset: anchor.Take(monoNow, wallNow).Offset}
}

type monotonic struct {
	mono   func() int64
	offset int64
}

func (m monotonic) UnixNano() int64 { return m.mono() + m.offset }
