package clocksrc

import (
	"sync/atomic"
	"time"
)

// Clock reports the current time as Unix nanoseconds. Implementations are
// safe for concurrent use.
type Clock interface {
	UnixNano() int64
}

// Func adapts f, which returns Unix nanoseconds, to a Clock.
func Func(f func() int64) Clock { return funcClock(f) }

type funcClock func() int64

func (f funcClock) UnixNano() int64 { return f() }

// FixedMillis is a clock stopped at Unix millisecond ms.
func FixedMillis(ms int64) Clock { return fixed(ms * int64(time.Millisecond)) }

type fixed int64

func (f fixed) UnixNano() int64 { return int64(f) }

// ScriptedMillis returns the Unix milliseconds ms in order, one per read,
// and after the last one moves forward 1 ms per read. It is safe for
// concurrent use: each read takes the next value.
func ScriptedMillis(ms ...int64) Clock {
	return &scripted{ms: append([]int64(nil), ms...)}
}

type scripted struct {
	ms    []int64
	reads atomic.Int64
}

func (s *scripted) UnixNano() int64 {
	i := s.reads.Add(1) - 1
	if i < int64(len(s.ms)) {
		return s.ms[i] * int64(time.Millisecond)
	}
	var last int64
	if len(s.ms) > 0 {
		last = s.ms[len(s.ms)-1]
	}
	return (last + i - int64(len(s.ms)) + 1) * int64(time.Millisecond)
}
