//go:build !unix

package workload

// processCPU is not measured here: saturate results then carry no
// CPUSamples and the gate reads wall-clock IDs/s.
func processCPU() (ns int64, ok bool) { return 0, false }
