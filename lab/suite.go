package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/redact"
)

// Workloads selects what a suite runs.
type Workloads struct {
	Burst, Saturate, Steady bool
}

// Suite is one lab run: every selected workload against every subject, in
// one process on one host, so the figures can be compared side by side.
type Suite struct {
	Subjects  []Subject
	Workloads Workloads
	Burst     BurstConfig
	Saturate  SatConfig
	Steady    SteadyConfig
	// Counters turns on hardware/software event counting around bursts.
	Counters bool
	// Command is recorded in the result (the command line that ran it),
	// with any credential in it redacted.
	Command []string
	// Commit is the source revision, recorded in the result; Dirty says
	// the tree had uncommitted changes.
	Commit string
	Dirty  bool
	// Progress, when set, is told before each step.
	Progress func(step, steps int, what string)
}

// Validate reports the first configuration out of range among the
// selected workloads.
func (s Suite) Validate() error {
	if s.Workloads.Burst {
		if err := s.Burst.Validate(); err != nil {
			return err
		}
	}
	if s.Workloads.Saturate {
		if err := s.Saturate.Validate(); err != nil {
			return err
		}
	}
	if s.Workloads.Steady {
		return s.Steady.Validate()
	}
	return nil
}

// Steps is how many progress steps Run reports.
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
			n += len(s.Saturate.withDefaults().Goroutines)
		}
		if s.Workloads.Steady {
			n++
		}
	}
	return n
}

// Run measures everything. A correctness failure does not stop the run: it
// is recorded in Run.Failures, naming the generator, and the caller decides
// (loadgen exits non-zero). An error is returned only when a generator
// cannot be built at all.
func (s Suite) Run() (*Run, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	run := &Run{Schema: SchemaVersion, Started: started.UTC(), Command: redact.Args(s.Command),
		Commit: s.Commit, Dirty: s.Dirty, Host: Host()}
	var ev *EventCounters
	if s.Counters {
		ev = OpenCounters()
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
		run.Subjects = append(run.Subjects, SubjectInfo{Name: sub.Name, Library: sub.Library, Peer: sub.Peer,
			Strict: sub.Strict, Nodes: max(sub.Nodes, 1), CeilingIDs: sub.Ceiling(), TickNs: sub.Tick.Nanoseconds(), Note: sub.Note,
			Limit: sub.Limit, Physical: sub.Physical})
	}
	for _, sub := range s.Subjects {
		if !s.Workloads.Burst {
			break
		}
		for _, batch := range []bool{false, true} {
			if batch && !sub.Batch {
				continue
			}
			cfg := s.Burst
			cfg.Batch = batch
			progress("burst " + sub.Name)
			r, err := Burst(sub, cfg, ev)
			if err != nil {
				return run, err
			}
			run.Burst = append(run.Burst, r)
			if !r.Check.OK() {
				run.Failures = append(run.Failures, r.Check.describe(sub.Name, "burst via "+r.Via))
			}
		}
	}
	for _, sub := range s.Subjects {
		if !s.Workloads.Saturate {
			break
		}
		for _, g := range s.Saturate.withDefaults().Goroutines {
			progress(fmt.Sprintf("saturate %s x%d", sub.Name, g))
			r, err := Saturate(sub, g, s.Saturate)
			if err != nil {
				return run, err
			}
			run.Saturate = append(run.Saturate, r)
			if !r.Check.OK() {
				run.Failures = append(run.Failures, r.Check.describe(sub.Name, fmt.Sprintf("saturate x%d", g)))
			}
		}
	}
	for _, sub := range s.Subjects {
		if !s.Workloads.Steady {
			break
		}
		progress("steady " + sub.Name)
		r, err := Steady(sub, s.Steady)
		if err != nil {
			return run, err
		}
		run.Steady = append(run.Steady, r)
		if !r.Check.OK() {
			run.Failures = append(run.Failures, r.Check.describe(sub.Name, "steady"))
		}
	}
	run.Elapsed = time.Since(started)
	return run, nil
}

// Stem names a run's files: <date>-<host>-<short sha>. Whether the tree
// was dirty is in the file, not its name (a commit recorded by an older
// lab as "<sha>+dirty" is named "<sha>-dirty").
func (r *Run) Stem() string {
	sha := r.Commit
	if sha == "" {
		sha = "nosha"
	}
	sha = strings.NewReplacer("+", "-", "/", "-").Replace(sha)
	return fmt.Sprintf("%s-%s-%s", r.Started.UTC().Format("20060102T150405Z"), r.Host.Slug(), sha)
}

// WriteFiles writes the run into dir: <stem>.json, <stem>.md and the
// charts under <stem>/. It returns the paths written.
func WriteFiles(dir string, r *Run) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	stem := filepath.Join(dir, r.Stem())
	var paths []string
	if err := writeJSON(stem+".json", r); err != nil {
		return nil, err
	}
	paths = append(paths, stem+".json")
	f, err := os.Create(stem + ".md")
	if err != nil {
		return paths, err
	}
	err = WriteMarkdown(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return paths, err
	}
	paths = append(paths, stem+".md")
	if err := os.MkdirAll(stem, 0o755); err != nil {
		return paths, err
	}
	charts, err := WriteCharts(r, stem)
	return append(paths, charts...), err
}
