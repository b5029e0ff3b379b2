//go:build !unix

package workload

import "time"

// processCPU is not measured here: saturate results then carry no
// CPUSamples and the gate reads wall-clock IDs/s.
func processCPU() (time.Duration, bool) { return 0, false }
