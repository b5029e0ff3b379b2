// Package workload drives a subject (lab/subject) and measures it: Burst
// releases G goroutines together for a fixed number of IDs (makespan,
// ticks spanned against the fewest the layout allows), saturate runs a closed loop
// for a fixed time at each goroutine count (IDs/s), Steady schedules calls
// open-loop at a fixed rate (latency from when each call was due, so a
// stall is not hidden, and from when it was sent, to show the gap). All
// three count each goroutine's calls while all of them were calling and
// report their fairness (shares, deviation, flagged unfair above
// unfairDeviationPct or under starvedShare of a fair share). All three start their goroutines through one
// fan-out that releases them at once, record per-call latency in
// HdrHistogram recorders, add up contention (slow paths, mutex wait,
// scheduling latency) and check every ID issued: unique, in the promised
// order, within a strict ceiling. What they return is a lab/result value.
//
// A zero field of a configuration takes the lab's default (the Default
// constants); Validate refuses a value out of range (the Max constants)
// with an error wrapping ErrConfig, before anything is allocated.
package workload
