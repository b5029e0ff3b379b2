// Package clocksrc is where a generator's time comes from.
//
// A Clock reports Unix time in nanoseconds. The sources differ in cost and
// in how they behave when the system's wall clock is corrected:
//
//   - Realtime reads CLOCK_REALTIME and follows every step NTP or an
//     operator makes, backwards included.
//   - Monotonic reads CLOCK_MONOTONIC and maps it onto Unix time through one
//     anchor taken when it is made; it never goes back, and never follows
//     the wall clock again.
//   - Default reads the vDSO monotonic clock (tens of nanoseconds, where the
//     two above are real system calls costing hundreds) and maps it through
//     an anchor it re-checks against CLOCK_REALTIME every
//     [DefaultResync]. A wall clock found ahead is followed at once (a
//     forward step); a wall clock found behind is approached by slewing, at
//     most [MaxSlewPPM] parts per million of elapsed time, so the clock a
//     generator reads never goes backwards because of a correction.
//
// ScriptedMillis, FixedMillis and Func build clocks for tests: a rewind, a
// freeze or a clock that retreats on every read is a scripted list, not a
// sleep. Audit measures each real source's cost and resolution on this host.
//
// ReadDiscipline says whether the system clock can be trusted: the
// kernel's account of its NTP discipline (synchronized or not, a leap second
// armed, the estimated and maximum error, read through adjtimex on Linux
// and "unknown" elsewhere) and what a Default clock has done to follow the
// wall clock (forward steps followed, backward steps found and the slew
// still left of them). It only reads; nothing here sets the clock.
//
// CLOCK_REALTIME and CLOCK_MONOTONIC are read through clock_gettime on Linux
// and macOS. Elsewhere (Windows, the BSDs) Realtime reads time.Now's wall
// clock and Monotonic the runtime's monotonic clock, the portable
// equivalents, and Audit reports no kernel resolution.
//
// # A leap second, with each source
//
// A leap second comes at the same instant on every node of a fleet, so
// what one generator does then, the fleet does at once. leap_test.go
// scripts the leap second of 2016-12-31 as each source sees it, stepped by
// the kernel (at 23:59:60 CLOCK_REALTIME repeats 23:59:59 while
// CLOCK_MONOTONIC runs on) or smeared by the NTP service over 24 hours, and
// runs a Strict atomicgen (MaxWait 5 ms) through it: one call per
// millisecond from 2 s before the leap to 3 s after, then one per 100 ms
// until 35 minutes after, 25,970 calls (go test -run LeapSecond -v prints
// the table):
//
//   - Realtime, stepped: refuses 994 calls (ErrClockBackwards, Unavailable
//     from snowidd), from 0.5 ms to 993.5 ms into 23:59:60, on every node at
//     once: the repeated second is up to 999 ms behind the last tick, more
//     than MaxWait. Its IDs are on UTC's millisecond again from +1 s.
//   - Default, stepped: refuses nothing. It finds the wall clock 1 s behind
//     at its next resync (one backward step in its Corrections) and slews it
//     off at 500 ppm, so the IDs of the next 33 min 19 s carry times up to
//     1 s ahead of UTC, shrinking.
//   - Monotonic, stepped: refuses nothing and never follows: a second ahead
//     of UTC for the process's life.
//   - Smeared, each source: nothing refused and nothing steps; IDs are up
//     to half a second off UTC on either side of the leap (+500 ms 1 s
//     after, +476 ms 35 min after), as the smear means them to be. Do not
//     mix smeared and stepped hosts in one fleet.
package clocksrc
