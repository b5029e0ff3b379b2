package host

// Fingerprint describes the host a run measured. It is filled by Probe.
type Fingerprint struct {
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
	// process may run on (CPUShortfall), so that a result read later
	// says its threads took turns.
	CPUWarning  string        `json:"cpu_warning,omitempty"`
	GoVersion   string        `json:"go_version"`
	OS          string        `json:"os"`
	Arch        string        `json:"arch"`
	Kernel      string        `json:"kernel"`
	Clocksource string        `json:"clocksource"`
	ClockAudit  []ClockReport `json:"clock_audit"`
	// PMU is what hardware counters can be read, or why not; set by the
	// code that counts them (the Suite, with CountEvents), empty where none did.
	PMU string `json:"pmu"`
	// Load is what else the host did during the run, set by the code
	// that runs it (StartLoad, LoadMeter.Stop); nil in files of labs that
	// did not record it, which reports print as "load not recorded".
	Load *Load `json:"load,omitempty"`
}

// ClockReport is clocksrc.Audit's finding for one source.
type ClockReport struct {
	Name             string  `json:"name"`
	NsPerRead        float64 `json:"ns_per_read"`
	ResolutionNs     int64   `json:"resolution_ns"`
	KernelResolution int64   `json:"kernel_resolution_ns"`
}
