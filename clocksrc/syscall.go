package clocksrc

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
	a := sampleAnchor(monoNow, wallNow)
	return monotonic{mono: monoNow, offset: a.offset}
}

type monotonic struct {
	mono   func() int64
	offset int64
}

func (m monotonic) UnixNano() int64 { return m.mono() + m.offset }

// anchor pairs a monotonic reading with the wall clock: wall = mono + offset.
type anchor struct {
	mono   int64 // monotonic nanoseconds at the middle of the sample
	offset int64 // CLOCK_REALTIME minus the monotonic reading
	spread int64 // half the time the sample took: its uncertainty
}

// sampleAnchor reads the wall clock between two monotonic reads and takes
// the midpoint, so the error is at most half the bracket.
func sampleAnchor(mono, wall func() int64) anchor {
	m1 := mono()
	w := wall()
	m2 := mono()
	mid := m1 + (m2-m1)/2
	return anchor{mono: mid, offset: w - mid, spread: (m2 - m1) / 2}
}
