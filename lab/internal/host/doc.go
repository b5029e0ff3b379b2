// Package host probes the machine a lab run measures and acts on it: the
// result.Host every result carries (Probe: CPU, caches, cores,
// hypervisor, Go runtime, kernel, clocksource, the clock sources' audit),
// the load the host was under during the run (loadMeter; Busy and
// LoadDifference judge it), the CPUs a process may run on and the pinning
// that uses them (the placement sweep that chooses them is contention's).
// A figure means nothing without the host it
// ran on; this package finds out which.
package host
