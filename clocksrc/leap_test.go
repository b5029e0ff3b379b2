package clocksrc_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
)

// The leap second of 2016-12-31: 23:59:60 UTC began at Unix second
// 1483228800, which POSIX time then repeats.
var leapAt = time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

const (
	second = int64(time.Second)
	milli  = int64(time.Millisecond)
	// smearSpan is a 24-hour linear smear centred on the leap (noon to
	// noon UTC, as Google's and AWS's time services run it).
	smearSpan = 86_400 * second
)

// trueTime is the simulated time, in SI nanoseconds on the Unix scale as it
// was before the leap. A call's first read of a clock is taken at the
// call's instant; a later read in the same call (a generator waiting out
// a rewind) adds the real time since, so a wait ends as it would on a
// running clock, and the next call starts no earlier than the wait ended.
type trueTime struct {
	base  int64
	reads int
	since time.Time
	last  int64 // the last instant read
}

func (tt *trueTime) at(t int64) {
	tt.base, tt.reads = max(t, tt.last), 0
}

func (tt *trueTime) now() int64 {
	tt.reads++
	if tt.reads == 1 {
		tt.since = time.Now()
		tt.last = tt.base
	} else {
		tt.last = tt.base + int64(time.Since(tt.since))
	}
	return tt.last
}

// A kernel's clocks as functions of true time t: CLOCK_REALTIME and
// CLOCK_MONOTONIC.
type kernelClocks struct {
	name      string
	realtime  func(t int64) int64
	monotonic func(t int64) int64
	// utc is UTC on the Unix scale at t, outside the leap second itself
	// (which the Unix scale cannot name).
	utc func(t int64) int64
}

// stepping is a kernel told of the leap (STA_INS): at 23:59:60 it steps
// CLOCK_REALTIME back one second, repeating 23:59:59; CLOCK_MONOTONIC
// runs on.
var stepping = kernelClocks{
	name: "leap inserted (STA_INS)",
	realtime: func(t int64) int64 {
		if t >= leapAt {
			return t - second
		}
		return t
	},
	monotonic: func(t int64) int64 { return t - leapAt + 1000*second },
	utc: func(t int64) int64 {
		if t >= leapAt+second {
			return t - second
		}
		return t
	},
}

// smear is the smeared time: the leap's second spread over smearSpan.
func smear(t int64) int64 {
	start := leapAt - smearSpan/2
	switch {
	case t <= start:
		return t
	case t >= start+smearSpan:
		return t - second
	}
	return t - (t-start)/(smearSpan/second)
}

// smeared is a kernel disciplined by a smearing NTP service: no leap is
// armed, the service slews the clock over the day, and the kernel applies
// a slew to CLOCK_MONOTONIC as to CLOCK_REALTIME.
var smeared = kernelClocks{
	name:      "smeared by the NTP service",
	realtime:  smear,
	monotonic: func(t int64) int64 { return smear(t) - leapAt + 1000*second },
	utc:       stepping.utc,
}

// leapRun is what one Strict generator did through a leap second.
type leapRun struct {
	calls, minted, refused int
	stats                  snowlab.Stats
	refusedFrom, refusedTo int64 // true time of the first and last refusal
	leadAfter              int64 // embedded time minus UTC, 1 s after the leap
	leadEnd                int64 // the same at the end of the run
	settled                int64 // true time after the leap from which every ID was within 1 ms of UTC (-1: never)
	maxLeadBefore          int64 // |embedded - UTC| before the leap, at most
	corrections            *clocksrc.Corrections
}

// runLeap runs a Strict atomicgen through the leap on clock, one NextID per
// millisecond from 2 s before the leap to 3 s after, then one per 100 ms
// until tail after the leap.
func runLeap(t *testing.T, k kernelClocks, tt *trueTime, clock clocksrc.Clock, tail int64) leapRun {
	t.Helper()
	// The default layout's epoch, 2024, is after the leap.
	layout := snowlab.DefaultLayout
	layout.Epoch = time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	gen, err := atomicgen.New(snowlab.Config{Node: 1, Clock: clock, Layout: layout})
	require.NoError(t, err)
	r := leapRun{refusedFrom: -1, settled: -1}
	var prev snowlab.ID
	call := func(at int64) {
		tt.at(at)
		r.calls++
		id, err := gen.NextID()
		if err != nil {
			require.ErrorIs(t, err, snowlab.ErrClockBackwards)
			r.refused++
			if r.refusedFrom < 0 {
				r.refusedFrom = tt.last
			}
			r.refusedTo = tt.last
			return
		}
		require.Greater(t, id, prev, "IDs increase")
		prev = id
		r.minted++
		// How far the ID's millisecond is from the one UTC is in.
		emb := layout.Decode(id).Time.UnixNano()
		lead := func(utc int64) int64 { return emb - (utc - utc%milli) }
		switch at := tt.last; {
		case at < leapAt:
			r.maxLeadBefore = max(r.maxLeadBefore, abs(lead(k.utc(at))))
		case at >= leapAt+second:
			l := lead(k.utc(at))
			if r.leadAfter == 0 && r.settled < 0 {
				r.leadAfter = l
			}
			r.leadEnd = l
			switch {
			case l != 0:
				r.settled = -1
			case r.settled < 0:
				r.settled = at - leapAt
			}
		}
	}
	for at := leapAt - 2*second + milli/2; at < leapAt+3*second; at += milli {
		call(at)
	}
	for at := leapAt + 3*second + milli/2; at < leapAt+tail; at += 100 * milli {
		call(at)
	}
	r.stats = gen.Stats()
	r.corrections = clocksrc.ReadDiscipline(clock).Default
	return r
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestLeapSecondStrict scripts the leap second of 2016-12-31 as each clock
// source would see it, stepped by the kernel or smeared by the NTP
// service, and runs a Strict generator (MaxWait 5 ms) through it at 1,000
// calls a second. Every node of a fleet sees the leap at the same instant,
// so what one generator does here, the whole fleet does at once. The
// figures it logs are the README's.
func TestLeapSecondStrict(t *testing.T) {
	const tail = 2_100 * second // long enough for Default to slew 1 s off
	sources := []struct {
		name  string
		clock func(k kernelClocks, tt *trueTime) clocksrc.Clock
	}{
		{"Realtime", func(k kernelClocks, tt *trueTime) clocksrc.Clock {
			return clocksrc.Func(func() int64 { return k.realtime(tt.now()) })
		}},
		{"Monotonic", func(k kernelClocks, tt *trueTime) clocksrc.Clock {
			return clocksrc.NewMonotonic(
				func() int64 { return k.monotonic(tt.now()) },
				func() int64 { return k.realtime(tt.now()) })
		}},
		{"Default", func(k kernelClocks, tt *trueTime) clocksrc.Clock {
			return clocksrc.NewAnchored(
				func() int64 { return k.monotonic(tt.now()) },
				func() int64 { return k.realtime(tt.now()) })
		}},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n| kernel | source | calls | minted | refused | rewind waits | refusals span | ID's ms - UTC's, 1 s after | at the end (+%d s) | IDs on UTC's ms from |\n", tail/second)
	for _, k := range []kernelClocks{stepping, smeared} {
		for _, src := range sources {
			t.Run(k.name+"/"+src.name, func(t *testing.T) {
				tt := &trueTime{}
				tt.at(leapAt - 2*second)
				r := runLeap(t, k, tt, src.clock(k, tt), tail)
				span := "none"
				if r.refused > 0 {
					span = fmt.Sprintf("%v to %v after 23:59:60", time.Duration(r.refusedFrom-leapAt), time.Duration(r.refusedTo-leapAt))
				}
				settled := "never"
				if r.settled >= 0 {
					settled = fmt.Sprintf("+%v", time.Duration(r.settled).Round(100*time.Millisecond))
				}
				fmt.Fprintf(&table, "| %s | %s | %d | %d | %d | %d | %s | %v | %v | %s |\n",
					k.name, src.name, r.calls, r.minted, r.refused, r.stats.RewindWaits, span,
					time.Duration(r.leadAfter).Round(time.Millisecond), time.Duration(r.leadEnd).Round(time.Millisecond), settled)
				if r.corrections != nil {
					t.Logf("Default's corrections: %+v", *r.corrections)
				}

				assert.Equal(t, r.calls, r.minted+r.refused)
				assert.Equal(t, uint64(r.refused), r.stats.RewindRefusals)
				assert.Zero(t, r.stats.TickWaits, "one call a millisecond never spends a tick")
				switch {
				case k.name == stepping.name && src.name == "Realtime":
					// The repeated second reads 999..0 ms behind the last
					// tick: 994 calls are more than MaxWait (5 ms) behind
					// and refused, the next waits until the clock is back
					// at the last tick, and the calls after it find it there.
					assert.Equal(t, 994, r.refused)
					assert.Equal(t, uint64(1), r.stats.RewindWaits)
					assert.Equal(t, leapAt+milli/2, r.refusedFrom)
					assert.Equal(t, leapAt+993*milli+milli/2, r.refusedTo)
					assert.InDelta(t, 0, r.leadEnd, float64(milli))
				case k.name == stepping.name && src.name == "Monotonic":
					// Never refuses, never follows: a second ahead of UTC
					// until the process restarts.
					assert.Zero(t, r.refused)
					assert.InDelta(t, second, r.leadEnd, float64(milli))
					assert.Equal(t, int64(-1), r.settled)
				case k.name == stepping.name && src.name == "Default":
					// Never refuses; finds the wall clock a second behind
					// within one resync and slews it off at 500 ppm: 2,000 s.
					assert.Zero(t, r.refused)
					assert.Zero(t, r.stats.RewindWaits)
					assert.InDelta(t, second, r.leadAfter, float64(clocksrc.DefaultResync)*clocksrc.MaxSlewPPM/1e6+float64(milli))
					assert.InDelta(t, 2_000*second, r.settled, float64(2*second))
					if assert.NotNil(t, r.corrections) {
						assert.Equal(t, uint64(1), r.corrections.BackwardSteps)
						assert.InDelta(t, second, int64(r.corrections.Backward), float64(10*time.Microsecond))
						assert.Zero(t, r.corrections.ForwardSteps)
					}
				default:
					// Smeared: every source reads the same slewed clock,
					// which never goes back. It is half a second behind UTC
					// as 23:59:60 begins, half a second ahead once it ends,
					// and back on UTC when the smear ends at noon.
					assert.Zero(t, r.refused)
					assert.Zero(t, r.stats.RewindWaits)
					assert.InDelta(t, second/2, r.leadAfter, float64(2*milli))
					assert.InDelta(t, second/2, r.maxLeadBefore, float64(2*milli))
					if r.corrections != nil {
						assert.Zero(t, r.corrections.BackwardSteps+r.corrections.ForwardSteps)
					}
				}
				if k.name == stepping.name {
					assert.Less(t, r.maxLeadBefore, milli, "on UTC before the leap")
				}
			})
		}
	}
	t.Log(table.String())
}
