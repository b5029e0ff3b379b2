package contention

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/perfevent"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// schema is the contention result's schema version.
const schema = 1

// runResult is one run of loadgen contention.
type runResult struct {
	result.Header
	// Factor is k in G=kP; Procs is P (GOMAXPROCS).
	Factor int `json:"factor"`
	Procs  int `json:"gomaxprocs"`
	// Warnings say what the host could not give the run (fewer CPUs than
	// it asks to run at once), also printed on stderr.
	Warnings  []string         `json:"warnings,omitempty"`
	Oversub   []oversubPoint   `json:"oversubscription,omitempty"`
	Hog       hogInfo          `json:"hog"`
	Placement []placementPoint `json:"placement,omitempty"`
	// PMU is whether hardware counters open here: "hardware", or
	// "unavailable: no PMU (...)" with the reason.
	PMU string `json:"pmu"`
	// Failures lists every check that failed, naming the subject.
	Failures []string `json:"failures,omitempty"`
}

// hogInfo is the hog beside the last oversubscription phase.
type hogInfo struct {
	Threads int `json:"threads"`
	// For is its bound: it ended by itself after this if not stopped.
	For time.Duration `json:"for_ns"`
	// CPUSeconds is the CPU time it took (user and system).
	CPUSeconds float64 `json:"cpu_seconds"`
}

// execute runs the parts of o. A run cut short (ctx ended) returns what
// it has with ctx's error.
func execute(ctx context.Context, o options, command []string, commit string, dirty bool, progress func(string)) (*runResult, error) {
	r := &runResult{Header: resultdir.NewHeader("contention", schema, command, commit, dirty, o.Host), Factor: o.Factor, Procs: o.Procs}
	start, meter := time.Now(), host.StartLoad()
	// The load counts the hog as another process's: its share is the
	// hog's and the neighbours' together.
	defer func() { r.Elapsed, r.Host.Load = time.Since(start), meter.Stop() }()
	r.PMU = perfevent.Probe()
	if r.PMU != "hardware" && r.PMU != "hardware (user-space)" {
		r.PMU = "unavailable: no PMU (" + r.PMU + ")"
	}
	cpus := r.Host.UsableCPUs()
	r.warn(r.Host.CPUWarning)
	var err error
	if slices.Contains(o.Parts, partOversub) {
		// The hog is meant to overcommit the CPUs: no warning for it.
		r.Oversub, r.Hog, err = oversub(ctx, o, o.Subjects, progress)
		for _, p := range r.Oversub {
			if !p.Check.OK() {
				r.Failures = append(r.Failures, fmt.Sprintf("%s %s: %s", p.Subject, p.Condition, p.Check))
			}
		}
	}
	if err == nil && slices.Contains(o.Parts, partPlacement) {
		r.warn(host.CPUShortfall(fmt.Sprintf("placing %d goroutines", o.PlaceG), o.PlaceG, cpus))
		r.Placement, err = placement(ctx, o, r.Host.Topology, r.Host.Affinity, progress)
	}
	return r, err
}

func (r *runResult) warn(s string) {
	if s != "" {
		r.Warnings = append(r.Warnings, s)
	}
}
