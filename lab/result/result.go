package result

import (
	"fmt"
	"strings"
	"time"
)

// SchemaVersion is the version of the result file format. Bump it when a
// field changes meaning; Read refuses files of another version, except
// those listed in readableSchemas.
//
// Version 2 stores latency histograms compressed (Hist.Encoding, Data)
// instead of as an array of bucket counts, records a dirty tree in Dirty
// instead of a "+dirty" suffix on Commit, and marks capped latencies.
const SchemaVersion = 2

// readableSchemas are the versions Read reads: version 1 differs from
// 2 only in the histogram's form, which Hist.Histogram reads either way.
var readableSchemas = []int{1, SchemaVersion}

// Run is everything one invocation of the lab measured: the file
// results/<date>-<host>-<sha>.json holds one.
type Run struct {
	Schema   int              `json:"schema"`
	Started  time.Time        `json:"started"`
	Elapsed  time.Duration    `json:"elapsed_ns"`
	Command  []string         `json:"command"`
	Commit   string           `json:"commit"`          // short sha ("<sha>+dirty" in files of older labs)
	Dirty    bool             `json:"dirty,omitempty"` // the tree had uncommitted changes
	Host     Host             `json:"host"`
	Subjects []SubjectInfo    `json:"subjects"`
	Burst    []BurstResult    `json:"burst,omitempty"`
	Saturate []SaturateResult `json:"saturate,omitempty"`
	Steady   []SteadyResult   `json:"steady,omitempty"`
	// Failures lists every correctness check that failed, naming the
	// generator. A run with failures exits non-zero.
	Failures []string `json:"failures,omitempty"`
}

// Revision is the commit as reports print it: "<sha>+dirty" when the tree
// had uncommitted changes.
func (r *Run) Revision() string {
	if r.Dirty && r.Commit != "" && !strings.HasSuffix(r.Commit, "+dirty") {
		return r.Commit + "+dirty"
	}
	return r.Commit
}

// SubjectInfo records what was measured, with its promises and ceiling.
type SubjectInfo struct {
	Name       string  `json:"name"`
	Library    string  `json:"library"`
	Peer       bool    `json:"peer"`
	Strict     bool    `json:"strict"`
	Nodes      int     `json:"nodes"`
	CeilingIDs float64 `json:"ceiling_ids_per_sec,omitempty"`
	TickNs     int64   `json:"tick_ns,omitempty"` // length of the layout's tick; 0 where it has none
	Note       string  `json:"note,omitempty"`
	Limit      string  `json:"limit,omitempty"`    // the physical-limit subject it is read against
	Physical   bool    `json:"physical,omitempty"` // a physical-limit subject itself
	// Order is the order promised to each goroutine: "caller" (each
	// goroutine's IDs increase), "shard" (within a shard, a node of its
	// own), "none"; "" in files of older labs.
	Order string `json:"order,omitempty"`
}

// Capped reports whether the subject keeps a strict per-node ceiling: a
// strict layout's sequence space per tick, which it waits out rather than
// borrow past.
func (s SubjectInfo) Capped() bool { return s.Strict && s.CeilingIDs > 0 }

// Latency summarises a latency histogram in nanoseconds. Hist keeps the
// raw HdrHistogram so a later tool can merge or re-read it.
type Latency struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_ns"`
	P50   int64   `json:"p50_ns"`
	P90   int64   `json:"p90_ns"`
	P99   int64   `json:"p99_ns"`
	P999  int64   `json:"p99_9_ns"`
	P9999 int64   `json:"p99_99_ns"`
	Max   int64   `json:"max_ns"`
	// Capped counts the latencies longer than the recorder's range,
	// recorded as CapNs: a percentile at or above CapNs is a lower bound
	// ("≥10s" in the reports), not a measurement.
	Capped int64 `json:"capped,omitempty"`
	CapNs  int64 `json:"cap_ns,omitempty"`
	Hist   *Hist `json:"hist,omitempty"`
}

// IsCapped reports whether the value v (one of l's percentiles) reached
// the recorder's cap and so is only a lower bound.
func (l Latency) IsCapped(v int64) bool { return l.Capped > 0 && l.CapNs > 0 && v >= l.CapNs }

// HistEncoding names the form of Hist.Data: HdrHistogram's V2 compressed
// encoding (the form its Java, C and Go implementations all read), in
// base64. A 10 s histogram at 3 significant figures holds 30,000-odd
// buckets; stored as a JSON array of counts that was ~100 KiB per result
// and 14 MB per suite run, compressed it is a few hundred bytes.
const HistEncoding = "hdr-v2-compressed-base64"

// Hist is an HdrHistogram snapshot as stored in results: Encoding and
// Data (see HistEncoding) in files of schema 2, the bucket counts in files
// of schema 1 as first written. Encoding, not the schema, says which:
// lab/internal/workload.Compact re-encodes a schema-1 file's counts in the
// compressed form, and lab/internal/workload.Histogram reads either.
type Hist struct {
	Encoding string `json:"encoding,omitempty"`
	Data     string `json:"data,omitempty"`

	// Schema 1 only.
	LowestTrackableValue  int64   `json:"lowest,omitempty"`
	HighestTrackableValue int64   `json:"highest,omitempty"`
	SignificantFigures    int64   `json:"sigfigs,omitempty"`
	Counts                []int64 `json:"counts,omitempty"`
}

// Contention is what slowed calls down, per ID issued.
type Contention struct {
	CASRetriesPerID  float64 `json:"cas_retries_per_id"`
	TickWaitsPerID   float64 `json:"tick_waits_per_id"`
	RewindWaitsPerID float64 `json:"rewind_waits_per_id"`
	// MutexWaitNsPerID is /sync/mutex/wait/total:seconds over the run,
	// per ID: time goroutines spent blocked on any sync.Mutex.
	MutexWaitNsPerID float64 `json:"mutex_wait_ns_per_id"`
	// SchedLatencyP99Ns is the p99 of /sched/latencies:seconds over the
	// run: how long runnable goroutines waited for a P.
	SchedLatencyP99Ns float64 `json:"sched_latency_p99_ns"`
}

// Events are hardware (or software) event counts per ID, from
// lab/internal/perfevent. Source says where they came from: "hardware", "software",
// or "unavailable: <reason>", never a silent zero.
type Events struct {
	Source string             `json:"source"`
	PerID  map[string]float64 `json:"per_id,omitempty"`
}

// Check is the correctness verdict on the IDs a run issued.
type Check struct {
	IDs             int    `json:"ids"`
	Duplicates      int    `json:"duplicates"`
	OrderViolations int    `json:"order_violations"` // where the generator promises order
	MaxPerTickNode  int    `json:"max_per_tick_node,omitempty"`
	CeilingExceeded bool   `json:"ceiling_exceeded,omitempty"` // strict generators only
	Errors          int    `json:"errors"`
	FirstError      string `json:"first_error,omitempty"`
}

// OK reports whether the check found nothing wrong.
func (c Check) OK() bool {
	return c.Duplicates == 0 && c.OrderViolations == 0 && !c.CeilingExceeded && c.Errors == 0
}

// String is "OK", or "FAIL: " and what the check found wrong, with the
// first error: the one description of a check every report and gate uses.
func (c Check) String() string {
	if c.OK() {
		return "OK"
	}
	var parts []string
	count := func(n int, one string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s%s", n, one, plural(n)))
		}
	}
	count(c.Duplicates, "duplicate")
	count(c.OrderViolations, "order violation")
	if c.CeilingExceeded {
		parts = append(parts, fmt.Sprintf("ceiling exceeded (%d in one tick on one node)", c.MaxPerTickNode))
	}
	count(c.Errors, "error")
	s := "FAIL: " + strings.Join(parts, ", ")
	if c.FirstError != "" {
		s += " (first: " + c.FirstError + ")"
	}
	return s
}

// Failure names a failed check for Run.Failures: the subject, where in
// the run it failed (e.g. "burst via NextID", "saturate x4"), out of how
// many IDs, and the check itself.
func (c Check) Failure(subject, where string) string {
	return fmt.Sprintf("%s (%s): %d IDs: %s", subject, where, c.IDs, c)
}

// BurstResult is one subject's fan-out bursts: G goroutines released
// together ask for N IDs in all, R times.
type BurstResult struct {
	Subject    string `json:"subject"`
	Via        string `json:"via"` // "NextID" (one call per ID) or "NextIDs" (one batch per goroutine)
	Goroutines int    `json:"goroutines"`
	IDs        int    `json:"ids"`
	Repeats    int    `json:"repeats"`
	// RequestedIDs is the burst asked for where it was cut to what the
	// subject's strict ceiling mints in CeilingBudget (IDs then holds
	// the cut; 0: not cut).
	RequestedIDs  int           `json:"requested_ids,omitempty"`
	CeilingBudget time.Duration `json:"ceiling_budget_ns,omitempty"`
	// MakespanNs is each repeat's time from the release to the last ID.
	MakespanNs []int64 `json:"makespan_ns"`
	// Ticks is each repeat's count of distinct ticks its IDs carry;
	// MinTicks the fewest the layout allows (0 where it has no ceiling);
	// its JSON key is the one the results already committed carry.
	Ticks    []int `json:"ticks"`
	MinTicks int   `json:"floor_ticks,omitempty"`
	// LeadNs is each repeat's lead at the end: the newest embedded
	// timestamp minus the wall clock (positive when IDs run ahead).
	LeadNs     []int64    `json:"lead_ns"`
	IDsPerSec  float64    `json:"ids_per_sec"` // N / median makespan
	Latency    Latency    `json:"latency"`     // per call
	Contention Contention `json:"contention"`
	Events     Events     `json:"counters"`
	Check      Check      `json:"check"`
	// Fairness is the goroutines' shares of the IDs (via NextID only: a
	// batch is one call per goroutine); nil in files of older labs.
	Fairness *Fairness `json:"fairness,omitempty"`
}

// SaturateResult is one subject at one goroutine count of the saturate sweep.
type SaturateResult struct {
	Subject    string        `json:"subject"`
	Goroutines int           `json:"goroutines"`
	Duration   time.Duration `json:"duration_ns"`
	// Samples is IDs/s per repeat; IDsPerSec their median.
	Samples    []float64 `json:"samples"`
	IDsPerSec  float64   `json:"ids_per_sec"`
	CeilingPct float64   `json:"ceiling_pct,omitempty"`
	// CPUSamples is per repeat the IDs over the CPU time the whole
	// process used (user and system), in IDs per CPU-second, where the
	// system reports it: what the subject minted with what the host gave
	// it, so a repeat the host took half a core from reads the same.
	CPUSamples []float64 `json:"cpu_samples,omitempty"`
	// ServerCPUSamples is per repeat the IDs over the CPU time the
	// server process of a remote subject used, where the lab could read
	// it (Subject.ServerCPU): what one core of the server gives,
	// whatever the client's side of the host did. ServerPerCPUSec is
	// their median.
	ServerCPUSamples []float64 `json:"server_cpu_samples,omitempty"`
	ServerPerCPUSec  float64   `json:"server_ids_per_cpu_sec,omitempty"`
	// TickFill is per repeat, for strict generators: of the (tick,
	// shard) slots the IDs were minted in, the median slot's count over
	// its sequence space (Subject.SlotCapacity). It is the ceiling
	// fraction counting only the ticks the host let the generator run
	// in, so a loaded host or fewer cores do not lower it; a generator
	// too slow to use up a tick does.
	TickFill   []float64  `json:"tick_fill,omitempty"`
	LeadNs     int64      `json:"lead_ns"`
	Latency    Latency    `json:"latency"`
	Contention Contention `json:"contention"`
	Check      Check      `json:"check"`
	// Fairness is the goroutines' shares of the IDs in each repeat
	// (counted at the timed calls, one in SampleEvery); nil with one
	// goroutine and in files of older labs.
	Fairness *Fairness `json:"fairness,omitempty"`
}

// SteadyResult is one subject driven open-loop at a target rate, latency
// measured from each call's intended start so that a stall is not hidden.
type SteadyResult struct {
	Subject    string        `json:"subject"`
	TargetRate float64       `json:"target_per_sec"`
	Achieved   float64       `json:"achieved_per_sec"`
	Duration   time.Duration `json:"duration_ns"`
	// RequestedDuration is the length asked for where the run was cut
	// so that the backlog of a subject whose strict ceiling is below the
	// rate lasts at most CeilingBudget (Duration then holds the cut; 0:
	// not cut).
	RequestedDuration time.Duration `json:"requested_duration_ns,omitempty"`
	CeilingBudget     time.Duration `json:"ceiling_budget_ns,omitempty"`
	// Latency is each call's latency from when it was due (corrected for
	// coordinated omission); Uncorrected the same calls' from when they
	// were sent, as a closed loop would time them (wrk2 keeps both): the
	// gap between the two is the wait a stall put on the calls behind it.
	// Uncorrected is nil in files of older labs.
	Latency     Latency  `json:"latency"`
	Uncorrected *Latency `json:"latency_uncorrected,omitempty"`
	Check       Check    `json:"check"`
	// Fairness is the workers' shares of the calls served; nil with one
	// worker and in files of older labs.
	Fairness *Fairness `json:"fairness,omitempty"`
	// ServerCPUPerID is the CPU time the server process of a remote
	// subject spent per ID during the run, where the lab could read it
	// (Subject.ServerCPU; 0: not measured). At a rate below the
	// server's most it includes what waking for each call costs.
	ServerCPUPerID time.Duration `json:"server_cpu_per_id_ns,omitempty"`
}
