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
package clocksrc
