package host

import (
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/lab/result"
)

// auditReads is how many reads Probe times per clock source: enough for
// a stable mean, few enough that Probe stays well under a second even where
// clock_gettime is a real system call.
const auditReads = 20_000

// clocksourcePath names the kernel's current clocksource.
const clocksourcePath = "/sys/devices/system/clocksource/clocksource0/current_clocksource"

// Probe describes the machine the lab runs on: CPU and caches (from CPUID;
// sizes are 0 where undetected), Go runtime, kernel, the kernel's
// clocksource and a short audit of the clock sources. It leaves PMU empty:
// whether hardware counters open is for the code that counts them to say
// (the Suite), so that reading the host links no perf events.
func Probe() result.Host {
	c := cpuid.CPU
	f := result.Host{
		CPU:           c.BrandName,
		PhysicalCores: c.PhysicalCores,
		LogicalCores:  c.LogicalCores,
		CacheLine:     c.CacheLine,
		L1D:           max(c.Cache.L1D, 0),
		L2:            max(c.Cache.L2, 0),
		L3:            max(c.Cache.L3, 0),
		Hypervisor:    result.Host{Hypervisor: c.HypervisorVendorString}.HypervisorName(),
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		Affinity:      Affinity(),
		GoVersion:     runtime.Version(),
		OS:            runtime.GOOS,
		Arch:          runtime.GOARCH,
	}
	if f.CPU == "" {
		f.CPU = c.VendorString
	}
	if f.CPU == "" {
		f.CPU = "unknown"
	}
	// CPUID describes the package the hypervisor advertises (a 2-vCPU
	// guest has read as 254 cores); the machine is what the OS runs on.
	if n := onlineCPUs(); f.LogicalCores <= 0 || f.LogicalCores > n {
		f.LogicalCores = n
	}
	if f.PhysicalCores <= 0 || f.PhysicalCores > f.LogicalCores {
		f.PhysicalCores = max(f.LogicalCores/max(c.ThreadsPerCore, 1), 1)
	}
	if f.Hypervisor == "" && c.HypervisorVendorID != cpuid.VendorUnknown {
		f.Hypervisor = c.HypervisorVendorID.String()
	}
	if t, err := ReadTopology("/sys"); err != nil {
		f.TopologyNote = "unknown: " + err.Error()
	} else {
		f.Topology = t
	}
	f.CPUWarning = CPUShortfall("GOMAXPROCS", f.GOMAXPROCS, f.UsableCPUs())
	if h, err := os.Hostname(); err == nil {
		f.Hostname = h
	}

	f.Kernel = kernel()

	if b, err := os.ReadFile(clocksourcePath); err != nil {
		f.Clocksource = "unknown: " + err.Error()
	} else if s := strings.TrimSpace(string(b)); s != "" {
		f.Clocksource = s
	} else {
		f.Clocksource = "unknown: empty " + clocksourcePath
	}

	for _, r := range clocksrc.Audit(auditReads) {
		f.ClockAudit = append(f.ClockAudit, result.ClockReport{
			Name:             r.Name,
			NsPerRead:        r.NsPerRead,
			ResolutionNs:     r.Resolution.Nanoseconds(),
			KernelResolution: r.KernelResolution.Nanoseconds(),
		})
	}
	return f
}

// onlinePath lists the CPUs the kernel has online, as ranges ("0-3,6").
const onlinePath = "/sys/devices/system/cpu/online"

// onlineCPUs is how many CPUs the OS runs: Linux's online list, else the
// runtime's count (which an affinity mask set at start can lower).
func onlineCPUs() int {
	if cpus, err := readCPUList(onlinePath); err == nil && len(cpus) > 0 {
		return len(cpus)
	}
	return runtime.NumCPU()
}
