// Package host describes the machine a lab run measured: the Fingerprint
// every result carries (CPU, caches, cores, hypervisor, Go runtime,
// kernel, clocksource) with its audit of the clock sources and the load
// the host was under during the run (LoadMeter; LoadDifference says when
// two runs' loads differ too much for their figures to compare), a slug
// for file names and the one-line summary reports print. A figure means
// nothing without the host it ran on; this package says which.
package host
