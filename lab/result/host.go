package result

import (
	"cmp"
	"fmt"
	"math"
	"strings"
)

// Host describes the host a run measured: CPU and caches, cores, the
// hypervisor, the Go runtime, the kernel and its clocksource, the clock
// sources' audit and the load the host was under. The lab probes it
// (loadgen, Suite.Measure); a figure means nothing without it.
type Host struct {
	Hostname      string `json:"hostname"`
	CPU           string `json:"cpu"`
	PhysicalCores int    `json:"physical_cores"`
	LogicalCores  int    `json:"logical_cores"`
	CacheLine     int    `json:"cache_line"`
	L1D           int    `json:"l1d_bytes"`
	L2            int    `json:"l2_bytes"`
	L3            int    `json:"l3_bytes"`
	Hypervisor    string `json:"hypervisor,omitempty"`
	GOMAXPROCS    int    `json:"gomaxprocs"`
	// Affinity lists the CPUs the process may run on, where the system
	// says (Linux); loadgen run -cpus narrows it.
	Affinity []int `json:"affinity,omitempty"`
	// Topology is where the online CPUs sit (SMT siblings, cores,
	// packages, NUMA nodes), read from /sys on Linux; nil where it could
	// not be read, and TopologyNote says why.
	Topology     *Topology `json:"topology,omitempty"`
	TopologyNote string    `json:"topology_note,omitempty"`
	// CPUWarning is set when GOMAXPROCS asks for more CPUs than the
	// process may run on, so that a result read later says its threads
	// took turns.
	CPUWarning  string        `json:"cpu_warning,omitempty"`
	GoVersion   string        `json:"go_version"`
	OS          string        `json:"os"`
	Arch        string        `json:"arch"`
	Kernel      string        `json:"kernel"`
	Clocksource string        `json:"clocksource"`
	ClockAudit  []ClockReport `json:"clock_audit"`
	// PMU is what hardware counters can be read, or why not; set by the
	// code that counts them (the Suite, with CountEvents), empty where
	// none did.
	PMU string `json:"pmu"`
	// Load is what else the host did during the run; nil in files of
	// labs that did not record it, which reports print as "load not
	// recorded".
	Load *Load `json:"load,omitempty"`
}

// String is the host in one line, as every table, chart and comparison
// names it: the CPU (the hostname where the CPU is unknown), GOMAXPROCS
// and the Go version, joined by " · ". The hostname, hypervisor and the
// rest are in the Markdown report's host section.
func (h Host) String() string {
	parts := []string{cmp.Or(h.CPU, h.Hostname, "unknown CPU"), fmt.Sprintf("GOMAXPROCS %d", h.GOMAXPROCS)}
	if h.GoVersion != "" {
		parts = append(parts, h.GoVersion)
	}
	return strings.Join(parts, " · ")
}

// HypervisorName is the hypervisor's vendor said once ("KVM"), "" where
// none was detected. CPUID returns the vendor in 12 bytes, which a
// shorter name pads with NULs or fills by repeating itself: KVM returns
// "KVMKVMKVM\0\0\0", bhyve "bhyve bhyve ", VMware "VMwareVMware"; result
// files of older labs hold that raw string, and this reads them alike. A
// name that is not a repeat ("Microsoft Hv") is kept whole, less the
// padding.
func (h Host) HypervisorName() string {
	s := strings.TrimSpace(strings.ReplaceAll(h.Hypervisor, "\x00", " "))
	for p := 1; p <= (len(s)+1)/2; p++ {
		unit := s[:p]
		k := (len(s) + p - 1) / p
		if k >= 2 && strings.TrimRight(strings.Repeat(unit, k), " ") == s {
			return strings.TrimSpace(unit)
		}
	}
	return s
}

// UsableCPUs is how many CPUs the process may run on: its affinity where
// known, else the logical cores.
func (h Host) UsableCPUs() int {
	if len(h.Affinity) > 0 {
		return len(h.Affinity)
	}
	return h.LogicalCores
}

// ClockReport is the audit of one clock source (clocksrc.Audit's
// finding): what a read costs and the resolution seen and claimed.
type ClockReport struct {
	Name             string  `json:"name"`
	NsPerRead        float64 `json:"ns_per_read"`
	ResolutionNs     int64   `json:"resolution_ns"`
	KernelResolution int64   `json:"kernel_resolution_ns"`
}

// Topology is how the host's online CPUs sit in hardware, as Linux's sysfs
// says: which are SMT siblings of one core, which cores share a package
// (socket), which CPUs share a NUMA node. Where a cache line travels
// between two CPUs decides what contention on it costs (David, Guerraoui
// and Trigonakis, SOSP '13), so a figure of a contended run needs it.
type Topology struct {
	// CPUs are the online CPUs, ascending.
	CPUs []TopoCPU `json:"cpus"`
	// Cores, Packages and NUMANodes count the distinct cores (package,
	// core id), packages and NUMA nodes among CPUs; SMT is the most
	// hardware threads one core has (1: no SMT siblings).
	Cores     int `json:"cores"`
	Packages  int `json:"packages"`
	NUMANodes int `json:"numa_nodes"`
	SMT       int `json:"smt"`
}

// TopoCPU is one online CPU's place.
type TopoCPU struct {
	CPU     int `json:"cpu"`
	Core    int `json:"core"`    // core_id, unique within its package only
	Package int `json:"package"` // physical_package_id
	Node    int `json:"node"`    // NUMA node; 0 where the kernel has none
	// Siblings are the CPUs of the same core (itself included).
	Siblings []int `json:"siblings"`
}

// String is the topology in one line: "2 CPUs, 2 cores (no SMT), 1
// package, 1 NUMA node".
func (t *Topology) String() string {
	if t == nil {
		return "topology unknown"
	}
	smt := "no SMT"
	if t.SMT > 1 {
		smt = fmt.Sprintf("SMT %d", t.SMT)
	}
	return fmt.Sprintf("%d CPUs, %d cores (%s), %d package(s), %d NUMA node(s)",
		len(t.CPUs), t.Cores, smt, t.Packages, t.NUMANodes)
}

// Load is what else the host did while a run measured: the load average
// as the run began and as it ended, and how the host's CPU time over the
// run was shared among the run itself (this process and the processes it
// started), every other process, and the hypervisor's other guests
// (steal). A figure measured on a busy host is partly the host's: CPU
// time others take is time the generators did not get, and a steady
// run's tail latency is then the scheduler's.
type Load struct {
	// Unknown says why the load was not recorded, "" when it was: off
	// Linux, or /proc could not be read. Nothing else is set then; the
	// lab does not guess.
	Unknown string `json:"unknown,omitempty"`
	// CPUs is how many CPUs /proc/stat counts: the shares below are of
	// their time together.
	CPUs  int     `json:"cpus,omitempty"`
	Start LoadAvg `json:"loadavg_start"`
	End   LoadAvg `json:"loadavg_end"`
	// Seconds is how long the measurement ran, by the kernel's count of
	// CPU time over CPUs.
	Seconds float64 `json:"seconds,omitempty"`
	// Own, Other and Steal are shares, 0 to 1, of all the CPUs' time over
	// the run: Own what this process and its descendants used (user and
	// system), Other what every other process and kernel thread used,
	// Steal what the hypervisor gave its other guests. Interrupt time and
	// idle time are in none of them.
	Own   float64 `json:"own_share"`
	Other float64 `json:"other_share"`
	Steal float64 `json:"steal_share"`
}

// LoadAvg is a reading of /proc/loadavg: the load averages over 1, 5 and
// 15 minutes, and the tasks runnable and existing at that moment. Read as
// a run ends, it counts the run's own threads.
type LoadAvg struct {
	One      float64 `json:"one"`
	Five     float64 `json:"five"`
	Fifteen  float64 `json:"fifteen"`
	Runnable int     `json:"runnable"`
	Tasks    int     `json:"tasks"`
}

// Recorded reports whether l holds a measured load: false for nil (an
// older lab's file) and for a load that could not be read.
func (l *Load) Recorded() bool { return l != nil && l.Unknown == "" }

// Taken is the share of the host's CPU time over the run that the run
// could not have had: what other processes and the hypervisor's other
// guests took. 0 when l is not recorded.
func (l *Load) Taken() float64 {
	if !l.Recorded() {
		return 0
	}
	return l.Other + l.Steal
}

// String is the load in one line, as reports and comparisons print it:
// "load: other processes 3% · steal 0% · this run 95% of 2 CPUs over 12s ·
// load average 0.12 at start, 2.05 at end"; "load not recorded" for nil,
// "load " and Unknown ("load unknown: why") for a load that could not be
// read.
func (l *Load) String() string {
	switch {
	case l == nil:
		return "load not recorded"
	case l.Unknown != "":
		return "load " + l.Unknown
	}
	s := fmt.Sprintf("load: other processes %s · steal %s · this run %s of %d CPU%s", Percent(l.Other), Percent(l.Steal),
		Percent(l.Own), l.CPUs, plural(l.CPUs))
	if l.Seconds > 0 {
		s += fmt.Sprintf(" over %.3gs", l.Seconds)
	}
	return s + fmt.Sprintf(" · load average %.2f at start, %.2f at end", l.Start.One, l.End.One)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Percent formats a share (0 to 1) as a whole percentage, "<1%" for a
// share above zero that would read as 0%, as Load.String and the reports
// print the shares of a Load.
func Percent(share float64) string {
	switch {
	case share > 0 && share < 0.005:
		return "<1%"
	case math.IsNaN(share):
		return "?"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}
