// Package lab is snowlab's performance lab as a library: the workloads that
// drive ID generators (burst, saturate, steady), the recorders that measure
// them (latency histograms, contention, hardware counters), the host
// fingerprint every result carries, the result files and charts, and the
// comparison of two runs that CI uses to catch a regression.
//
// Everything measured goes through one adapter, Subject, so snowlab's own
// generators and the Go libraries people use today (package lab/peers) are
// driven by the same loops in the same run. Every workload also checks what
// it measured: a run whose IDs repeat fails loudly and names the generator.
//
// A zero field of a workload's configuration takes the lab's default, and
// loadgen's flags start from the same constants, so that a Suite built in
// code and `loadgen run` measure alike: a burst of 100,000 IDs from 32
// goroutines, 3 repeats 20 ms apart (DefaultBurstIDs, …Goroutines,
// …Repeats, …Pause); a saturate sweep of 3 repeats of 100 ms at each
// goroutine count (DefaultSaturateRepeats, DefaultSaturateDuration); a
// steady run of 300 ms at 1,000,000 calls/s (DefaultSteadyDuration,
// DefaultSteadyRate). These are the settings of the committed results.
// Each configuration's Validate refuses a value out of range (see the Max
// constants) with an error wrapping ErrConfig, before anything is
// allocated.
package lab
