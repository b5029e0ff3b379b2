package lab

import (
	"cmp"
	"fmt"
	"time"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/perfevent"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/vcs"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// Workloads selects what a suite runs.
type Workloads struct {
	Burst, Saturate, Steady bool
}

// Suite is one lab run: every selected workload against every subject, in
// one process on one host, so the figures can be compared side by side.
type Suite struct {
	Subjects  []subject.Subject
	Workloads Workloads
	Burst     BurstConfig
	Saturate  SaturateConfig
	Steady    SteadyConfig
	// CountEvents turns on hardware (or software) event counting around
	// bursts (perf events, Linux only), and records in the host's PMU what can be
	// counted.
	CountEvents bool
	// Command is recorded in the result (the command line that ran it),
	// with any credential in it redacted.
	Command []string
	// Commit is the source revision, recorded in the result; Dirty says
	// the tree had uncommitted changes. Where Commit is empty, Measure
	// records the revision the program was built from (its build info,
	// else git in the working directory), so that a run of your own
	// subjects carries its commit into the history as loadgen's do.
	Commit string
	Dirty  bool
	// Progress, when set, is told before each step.
	Progress func(step, steps int, what string)
}

// Validate reports the first configuration out of range among the
// selected workloads.
func (s Suite) Validate() error {
	var burst, saturate, steady error
	if s.Workloads.Burst {
		burst = s.Burst.Validate()
	}
	if s.Workloads.Saturate {
		saturate = s.Saturate.Validate()
	}
	if s.Workloads.Steady {
		steady = s.Steady.Validate()
	}
	return cmp.Or(burst, saturate, steady)
}

// Steps is how many progress steps Measure reports.
func (s Suite) Steps() int {
	n := 0
	for _, sub := range s.Subjects {
		if s.Workloads.Burst {
			n++
			if sub.Batch {
				n++
			}
		}
		if s.Workloads.Saturate {
			sat := workload.SaturateConfig(s.Saturate)
			n += len(sat.Sweep()) * sat.RepeatCount()
		}
		if s.Workloads.Steady {
			n++
		}
	}
	return n
}

// Measure runs every selected workload against every subject, recording
// the host and the load it was under (host.StartLoad). A
// correctness failure does not stop it: it is recorded in the result's
// Failures, naming the generator, and the caller decides (loadgen exits
// non-zero). An error is returned only for a configuration out of range or
// a generator that cannot be built at all.
func (s Suite) Measure() (*result.Run, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	if s.Commit == "" {
		s.Commit, s.Dirty = vcs.Commit()
	}
	run := &result.Run{Schema: result.SchemaVersion, Started: started.UTC(), Command: resultdir.RedactArgs(s.Command),
		Commit: s.Commit, Dirty: s.Dirty, Host: host.Probe()}
	// The load is read over the whole run, the failed part of one
	// included: a figure is read against what else the host was doing.
	load := host.StartLoad()
	defer func() { run.Host.Load = load.Stop() }()
	var ev *perfevent.Counter
	if s.CountEvents {
		run.Host.PMU = perfevent.Probe()
		ev = perfevent.Open()
		defer ev.Close()
	}
	step, steps := 0, s.Steps()
	progress := func(what string) {
		if s.Progress != nil {
			s.Progress(step, steps, what)
		}
		step++
	}
	for _, sub := range s.Subjects {
		run.Subjects = append(run.Subjects, result.SubjectInfo{Name: sub.Name, Library: sub.Library, Peer: sub.Peer,
			Strict: sub.Strict, Nodes: max(sub.Nodes, 1), CeilingIDs: sub.Ceiling(), TickNs: sub.Tick.Nanoseconds(), Note: sub.Note,
			Limit: sub.Limit, Physical: sub.Physical, Order: orderName(sub.Order)})
	}
	if err := s.bursts(run, ev, progress); err != nil {
		return run, err
	}
	if err := s.saturate(run, progress); err != nil {
		return run, err
	}
	if err := s.steady(run, progress); err != nil {
		return run, err
	}
	noteCuts(run)
	run.Elapsed = time.Since(started)
	return run, nil
}

// bursts runs the burst workload, NextID and NextIDs where a subject
// batches, against every subject into run.
func (s Suite) bursts(run *result.Run, ev *perfevent.Counter, progress func(string)) error {
	for _, sub := range s.Subjects {
		if !s.Workloads.Burst {
			break
		}
		for _, batch := range []bool{false, true} {
			if batch && !sub.Batch {
				continue
			}
			progress("burst " + sub.Name)
			r, err := workload.Burst(sub, workload.BurstConfig(s.Burst), batch, ev)
			if err != nil {
				return err
			}
			run.Burst = append(run.Burst, r)
			if !r.Check.OK() {
				run.Failures = append(run.Failures, r.Check.Failure(sub.Name, "burst via "+r.Via))
			}
		}
	}
	return nil
}

// saturate runs the saturate sweep over every subject into run.
func (s Suite) saturate(run *result.Run, progress func(string)) error {
	if s.Workloads.Saturate {
		// Interleaved: each round measures every subject at every
		// goroutine count, so the ratios the gate reads (a generator's
		// cost over its physical limit's, scaling over the limit's
		// scaling) compare
		// repeats that ran a moment apart on the same host.
		cfg := workload.SaturateConfig(s.Saturate)
		reps := cfg.RepeatCount()
		sat, err := workload.SaturateSweep(s.Subjects, cfg, func(sub subject.Subject, g, r int) {
			progress(fmt.Sprintf("saturate %s x%d (%d/%d)", sub.Name, g, r+1, reps))
		})
		if err != nil {
			return err
		}
		for _, r := range sat {
			run.Saturate = append(run.Saturate, r)
			if !r.Check.OK() {
				run.Failures = append(run.Failures, r.Check.Failure(r.Subject, fmt.Sprintf("saturate x%d", r.Goroutines)))
			}
		}
	}
	return nil
}

// steady runs the open-loop steady workload against every subject into
// run.
func (s Suite) steady(run *result.Run, progress func(string)) error {
	for _, sub := range s.Subjects {
		if !s.Workloads.Steady {
			break
		}
		progress("steady " + sub.Name)
		r, err := workload.Steady(sub, workload.SteadyConfig(s.Steady))
		if err != nil {
			return err
		}
		run.Steady = append(run.Steady, r)
		if !r.Check.OK() {
			run.Failures = append(run.Failures, r.Check.Failure(sub.Name, "steady"))
		}
	}
	return nil
}

// orderName is o as result.SubjectInfo.Order records it.
func orderName(o subject.Order) string {
	switch o {
	case subject.OrderCaller:
		return "caller"
	case subject.OrderShard:
		return "shard"
	}
	return "none"
}
