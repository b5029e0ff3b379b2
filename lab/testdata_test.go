package lab

import (
	"fmt"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"strings"
	"time"
)

// Synthetic fixture for the report and chart tests: a run shaped like one
// the lab records on a small cloud VM, with snowlab's generators and four
// peers, strict ceilings of three sizes (1 node, 8 nodes, Sonyflake's 10 ms
// ticks), a saturate sweep at 1, 2 and 4 goroutines, bursts via NextID and
// NextIDs, two steady results and one failed check. The numbers are made
// up but plausible; nothing here is written into results/.

const (
	synthIDs     = 20_000
	synthG       = 8
	synthRepeats = 5
	synthCeil1   = 4_096_000.0     // 4096 IDs per 1 ms tick, 1 node
	synthCeil8   = 8 * 4_096_000.0 // 8 nodes
	synthCeilSF  = 25_600.0        // Sonyflake defaults: 256 per 10 ms tick
	synthFailure = "google/uuid-v7"
	synthCounter = "unavailable: perf_event_open: permission denied (perf_event_paranoid is 4; needs 2 or less)"
)

// synthRun returns a fresh synthetic Run; callers may modify it.
func synthRun() *Run {
	own := "github.com/snowlab/snowlab"
	run := &Run{
		Schema:  SchemaVersion,
		Started: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC),
		Elapsed: 3*time.Minute + 41*time.Second,
		Command: []string{"snowlab-lab", "run", "-burst", "-saturate", "-steady", "-out", "results/"},
		Commit:  "6bc4800+dirty",
		Host: Fingerprint{
			Hostname:      "lab-vm-3",
			CPU:           "AMD EPYC 7B13 64-Core Processor",
			PhysicalCores: 4,
			LogicalCores:  8,
			CacheLine:     64,
			L1D:           32 << 10,
			L2:            512 << 10,
			L3:            32 << 20,
			Hypervisor:    "KVM",
			GOMAXPROCS:    8,
			GoVersion:     "go1.26.8",
			OS:            "linux",
			Arch:          "amd64",
			Kernel:        "6.8.0-1019-gcp",
			Clocksource:   "kvm-clock",
			PMU:           synthCounter,
			ClockAudit: []ClockReport{
				{Name: "realtime (x/sys clock_gettime)", NsPerRead: 31.4, ResolutionNs: 30, KernelResolution: 1},
				{Name: "monotonic (x/sys clock_gettime)", NsPerRead: 30.9, ResolutionNs: 30, KernelResolution: 1},
				{Name: "default (vDSO + anchor)", NsPerRead: 21.7, ResolutionNs: 20, KernelResolution: 1},
				{Name: "vdso monotonic (runtime.nanotime)", NsPerRead: 19.8, ResolutionNs: 19, KernelResolution: 1},
				{Name: "time.Now", NsPerRead: 41.2, ResolutionNs: 40, KernelResolution: 1},
			},
		},
		Subjects: []SubjectInfo{
			{Name: "mutexgen/strict", Library: own, Strict: true, Nodes: 1, CeilingIDs: synthCeil1, TickNs: 1e6},
			{Name: "atomicgen/strict", Library: own, Strict: true, Nodes: 1, CeilingIDs: synthCeil1, TickNs: 1e6},
			// The suite records the layout's ceiling for monotonic
			// generators too; they may pass it by running ahead.
			{Name: "atomicgen/monotonic", Library: own, Nodes: 1, CeilingIDs: synthCeil1, TickNs: 1e6},
			{Name: "shardedgen/node-per-shard/strict", Library: own, Strict: true, Nodes: 8, CeilingIDs: synthCeil8, TickNs: 1e6},
			{Name: "bwmarrin/snowflake", Library: "github.com/bwmarrin/snowflake@v0.3.0", Peer: true, Strict: true,
				Nodes: 1, CeilingIDs: synthCeil1, TickNs: 1e6},
			{Name: "sony/sonyflake", Library: "github.com/sony/sonyflake/v2@v2.2.0", Peer: true, Strict: true,
				Nodes: 1, CeilingIDs: synthCeilSF, TickNs: 1e7,
				Note: "library defaults (10ms unit, 8 sequence bits); MachineID fixed to 1"},
			{Name: synthFailure, Library: "github.com/google/uuid@v1.6.0", Peer: true, Nodes: 1,
				Note: "UUIDv7 | 128-bit; order promised per caller"},
			{Name: "oklog/ulid-monotonic", Library: "github.com/oklog/ulid/v2@v2.1.2", Peer: true, Nodes: 1},
			{Name: LimitClockCAS, Library: "github.com/snowlab/snowlab/internal/benchgen/limit", Nodes: 1, Physical: true},
			{Name: LimitPerP, Library: "github.com/snowlab/snowlab/internal/benchgen/limit", Nodes: 1, Physical: true},
		},
	}
	for i := range run.Subjects {
		switch s := &run.Subjects[i]; {
		case s.Physical:
		case strings.HasPrefix(s.Name, "shardedgen/"):
			s.Limit = LimitPerP
		default:
			s.Limit = LimitClockCAS
		}
	}

	type burst struct {
		subject, via string
		floor        int
		makespanMs   [synthRepeats]float64
		ticks        [synthRepeats]int
		leadUs       float64
		lat          [6]int64 // p50 p90 p99 p99.9 p99.99 max, ns
		cas, waits   float64
		mutexNs      float64
	}
	bursts := []burst{
		{"mutexgen/strict", "NextID", 5, [5]float64{4.62, 4.51, 4.98, 4.60, 4.71}, [5]int{5, 5, 5, 5, 5}, -310,
			[6]int64{210, 1_400, 48_000, 640_000, 980_000, 1_021_000}, 0, 0.0009, 1_180},
		{"mutexgen/strict", "NextIDs", 5, [5]float64{4.10, 4.05, 4.31, 4.12, 4.08}, [5]int{5, 5, 5, 5, 5}, -402,
			[6]int64{}, 0, 0.0004, 3.1},
		{"atomicgen/strict", "NextID", 5, [5]float64{4.71, 4.66, 4.80, 4.93, 4.70}, [5]int{5, 5, 5, 5, 5}, -188,
			[6]int64{95, 310, 2_100, 410_000, 960_000, 1_010_000}, 0.42, 0.0011, 0},
		{"atomicgen/strict", "NextIDs", 5, [5]float64{4.05, 4.02, 4.09, 4.11, 4.04}, [5]int{5, 5, 5, 5, 5}, -377,
			[6]int64{}, 0.01, 0.0003, 0},
		{"atomicgen/monotonic", "NextID", 0, [5]float64{1.92, 1.88, 2.10, 1.95, 1.90}, [5]int{5, 5, 5, 5, 5}, 2_910,
			[6]int64{70, 180, 900, 4_100, 18_000, 52_000}, 0.61, 0, 0},
		{"atomicgen/monotonic", "NextIDs", 0, [5]float64{0.21, 0.19, 0.26, 0.22, 0.20}, [5]int{5, 5, 5, 5, 5}, 4_780,
			[6]int64{}, 0.02, 0, 0},
		{"shardedgen/node-per-shard/strict", "NextID", 1, [5]float64{0.41, 0.39, 0.52, 0.40, 0.44}, [5]int{1, 1, 2, 1, 1}, -720,
			[6]int64{28, 45, 160, 1_900, 9_000, 31_000}, 0, 0, 0},
		{"shardedgen/node-per-shard/strict", "NextIDs", 1, [5]float64{0.09, 0.08, 0.12, 0.09, 0.10}, [5]int{1, 1, 1, 1, 1}, -905,
			[6]int64{}, 0, 0, 0},
		{"bwmarrin/snowflake", "NextID", 5, [5]float64{4.85, 4.79, 5.02, 4.88, 4.90}, [5]int{5, 5, 6, 5, 5}, -95,
			[6]int64{240, 1_800, 85_000, 720_000, 990_000, 1_050_000}, 0, 0, 2_450},
		{"sony/sonyflake", "NextID", 79, [5]float64{788, 791, 795, 786, 790}, [5]int{79, 80, 80, 79, 80}, -4_100,
			[6]int64{290_000, 9_800_000, 10_400_000, 20_100_000, 30_000_000, 41_000_000}, 0, 0, 312_000},
		{synthFailure, "NextID", 0, [5]float64{2.40, 2.31, 2.75, 2.38, 2.45}, [5]int{3, 3, 3, 3, 3}, 0,
			[6]int64{160, 620, 3_200, 18_000, 95_000, 210_000}, 0, 0, 1_020},
		{"oklog/ulid-monotonic", "NextID", 0, [5]float64{3.10, 3.02, 3.33, 3.08, 3.15}, [5]int{4, 4, 4, 4, 4}, 0,
			[6]int64{190, 750, 4_100, 25_000, 120_000, 340_000}, 0, 0, 1_640},
	}
	for _, b := range bursts {
		r := BurstResult{
			Subject: b.subject, Via: b.via, Goroutines: synthG, IDs: synthIDs, Repeats: synthRepeats,
			FloorTicks: b.floor,
			Contention: Contention{CASRetriesPerID: b.cas, TickWaitsPerID: b.waits, MutexWaitNsPerID: b.mutexNs,
				SchedLatencyP99Ns: 18_000},
			Counters: Counters{Source: synthCounter},
			Check:    Check{IDs: synthIDs * synthRepeats},
		}
		for i := range synthRepeats {
			ns := int64(b.makespanMs[i] * 1e6)
			r.MakespanNs = append(r.MakespanNs, ns)
			r.Ticks = append(r.Ticks, b.ticks[i])
			r.LeadNs = append(r.LeadNs, int64(b.leadUs*1e3)+int64(i)*7_000-14_000)
		}
		r.IDsPerSec = synthIDs / (stats.Median(r.MakespanNs) / 1e9)
		calls := int64(synthIDs * synthRepeats)
		if b.via == "NextIDs" {
			// One batch call per goroutine per repeat: its latency is
			// about the whole burst.
			calls = synthG * synthRepeats
			med := int64(b.makespanMs[0] * 1e6)
			b.lat = [6]int64{med * 9 / 10, med, med, med * 11 / 10, med * 11 / 10, med * 11 / 10}
		}
		r.Latency = Latency{Count: calls, Mean: float64(b.lat[0]) * 1.6,
			P50: b.lat[0], P90: b.lat[1], P99: b.lat[2], P999: b.lat[3], P9999: b.lat[4], Max: b.lat[5]}
		if b.subject == synthFailure {
			r.Check.OrderViolations = 37
		}
		r.Check.MaxPerTickNode = min(synthIDs, 4096)
		run.Burst = append(run.Burst, r)
	}

	// Saturate: median IDs/s at 1, 2 and 4 goroutines.
	sat := map[string][3]float64{
		"mutexgen/strict":                  {4.091e6, 4.088e6, 4.079e6},
		"atomicgen/strict":                 {4.094e6, 4.093e6, 4.090e6},
		"atomicgen/monotonic":              {48.2e6, 31.5e6, 22.8e6},
		"shardedgen/node-per-shard/strict": {31.9e6, 32.6e6, 32.7e6},
		"bwmarrin/snowflake":               {4.090e6, 4.071e6, 3.982e6},
		"sony/sonyflake":                   {25_540, 25_530, 25_410},
		synthFailure:                       {9.8e6, 6.1e6, 4.4e6},
		"oklog/ulid-monotonic":             {8.7e6, 5.2e6, 3.9e6},
		LimitClockCAS:                      {66.1e6, 40.2e6, 29.9e6},
		LimitPerP:                          {36.4e6, 70.5e6, 71.0e6},
	}
	for _, s := range run.Subjects {
		for i, g := range []int{1, 2, 4} {
			v := sat[s.Name][i]
			r := SatResult{Subject: s.Name, Goroutines: g, Duration: 2 * time.Second,
				Samples:   []float64{v * 0.985, v, v * 1.004, v * 0.97, v * 1.01},
				IDsPerSec: v, LeadNs: -250_000,
				Latency: Latency{Count: int64(v * 2 * 5), Mean: 1e9 / v * float64(g),
					P50: int64(1e9 / v * float64(g) * 0.8), P90: int64(1e9 / v * float64(g) * 2),
					P99: int64(1e9 / v * float64(g) * 9), P999: 180_000, P9999: 950_000, Max: 1_100_000},
				Check: Check{IDs: int(v * 2 * 5)},
			}
			if s.CeilingIDs > 0 {
				r.CeilingPct = 100 * v / s.CeilingIDs
			}
			if s.Name == "atomicgen/monotonic" {
				r.LeadNs = int64(float64(g) * 3.1e9)
			}
			run.Saturate = append(run.Saturate, r)
		}
	}

	for _, s := range []struct {
		name string
		lat  [6]int64
	}{
		{"atomicgen/strict", [6]int64{110, 240, 1_900, 48_000, 410_000, 1_200_000}},
		{"bwmarrin/snowflake", [6]int64{260, 610, 3_800, 96_000, 880_000, 2_300_000}},
	} {
		run.Steady = append(run.Steady, SteadyResult{
			Subject: s.name, TargetRate: 1e6, Achieved: 999_998.4, Duration: 5 * time.Second,
			Latency: Latency{Count: 5_000_000, Mean: float64(s.lat[0]) * 1.5, P50: s.lat[0], P90: s.lat[1],
				P99: s.lat[2], P999: s.lat[3], P9999: s.lat[4], Max: s.lat[5]},
			Check: Check{IDs: 5_000_000},
		})
	}

	run.Failures = []string{fmt.Sprintf(
		"%s (burst via NextID): %d IDs, 0 duplicates, 37 order violations, max 4096 per tick per node (ceiling exceeded: false), 0 errors ",
		synthFailure, synthIDs*synthRepeats)}
	return run
}
