// Package perfevent counts hardware events (cycles, instructions, cache
// and branch misses) over every thread of the process around a stretch of
// work, falling back to software events (task clock, context switches,
// migrations, page faults) where the PMU cannot be opened, and saying why
// where neither can: a count is never a silent zero.
//
// It is Linux-only (perf_event_open); elsewhere Open returns a Counter
// whose every result is "unavailable", so the lab builds and runs on every
// system and says what it could not measure.
package perfevent
