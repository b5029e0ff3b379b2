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
package lab
