package clocksrc

import (
	"time"

	"github.com/snowlab/snowlab/internal/mono"
)

// Report is what Audit measured of one clock source on this host.
type Report struct {
	Name string `json:"name"`
	// NsPerRead is the mean cost of one read.
	NsPerRead float64 `json:"ns_per_read"`
	// Resolution is the smallest non-zero step seen between consecutive
	// reads: the finest time the source actually reports here.
	Resolution time.Duration `json:"resolution_ns"`
	// KernelResolution is clock_getres for the underlying kernel clock, or
	// 0 where the source has none or the system no clock_getres (only Linux
	// reports it).
	KernelResolution time.Duration `json:"kernel_resolution_ns"`
}

// Audit measures each clock source: Realtime, Monotonic, Default, the bare
// vDSO monotonic read they are compared with, and time.Now. reads is how
// many reads to time per source; 0 means 100,000.
func Audit(reads int) []Report {
	if reads <= 0 {
		reads = 100_000
	}
	return []Report{
		measure("realtime ("+syscallSource+")", Realtime().UnixNano, reads, getresRealtime()),
		measure("monotonic ("+syscallSource+")", Monotonic().UnixNano, reads, getresMonotonic()),
		measure("default (vDSO + anchor)", Default().UnixNano, reads, getresMonotonic()),
		measure("vdso monotonic (runtime.nanotime)", mono.Now, reads, getresMonotonic()),
		measure("time.Now", func() int64 { return time.Now().UnixNano() }, reads, getresRealtime()),
	}
}

func measure(name string, read func() int64, reads int, kernel time.Duration) Report {
	var minStep int64
	prev := read()
	start := mono.Now()
	for i := 0; i < reads; i++ {
		v := read()
		if d := v - prev; d > 0 && (minStep == 0 || d < minStep) {
			minStep = d
		}
		prev = v
	}
	elapsed := mono.Now() - start
	return Report{
		Name:             name,
		NsPerRead:        float64(elapsed) / float64(reads),
		Resolution:       time.Duration(minStep),
		KernelResolution: kernel,
	}
}
