// Package suiteflags reads the flags that shape a suite (loadgen run's)
// into a lab.Suite, and picks its subjects by spec: a
// group (all, own, peers), a name or a name prefix.
package suiteflags

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/internal/peers"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/subject"
)

// Flags are the flags that shape a suite (loadgen run's).
type Flags struct {
	Subjects   string
	Workloads  string
	IDs        int
	Goroutines int
	Repeats    int
	Pause      time.Duration
	Sweep      string
	Duration   time.Duration
	SatRepeats int
	Rate       float64
	SteadyDur  time.Duration
	Budget     time.Duration
	Events     bool
}

func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Subjects, "subjects", "all", "what to measure: all, own, peers, limit, or a comma list of names or name prefixes (see loadgen list)")
	fs.StringVar(&f.Workloads, "workloads", "burst,saturate,steady", "comma list of workloads to run")
	fs.IntVar(&f.IDs, "n", workload.DefaultBurstIDs, fmt.Sprintf("burst: IDs per fan-out burst (1 to %d)", workload.MaxBurstIDs))
	fs.IntVar(&f.Goroutines, "g", workload.DefaultBurstGoroutines, fmt.Sprintf("burst: goroutines released together per burst (1 to %d)", workload.MaxGoroutines))
	fs.IntVar(&f.Repeats, "repeats", workload.DefaultBurstRepeats, fmt.Sprintf("burst: bursts per subject, makespan samples (1 to %d)", workload.MaxRepeats))
	fs.DurationVar(&f.Pause, "pause", workload.DefaultBurstPause, fmt.Sprintf("burst: pause between bursts (0 to %v)", workload.MaxPause))
	fs.StringVar(&f.Sweep, "sweep", "", fmt.Sprintf("saturate: comma list of goroutine counts, each 1 to %d (default 1,2,4,… up to 2 x GOMAXPROCS)", workload.MaxGoroutines))
	fs.DurationVar(&f.Duration, "duration", workload.DefaultSaturateDuration, fmt.Sprintf("saturate: length of one repeat (more than 0, at most %v)", workload.MaxDuration))
	fs.IntVar(&f.SatRepeats, "sat-repeats", workload.DefaultSaturateRepeats, fmt.Sprintf("saturate: repeats per goroutine count, IDs/s samples (1 to %d)", workload.MaxRepeats))
	fs.Float64Var(&f.Rate, "rate", workload.DefaultSteadyRate, fmt.Sprintf("steady: target calls per second, open loop (more than 0, at most %g)", workload.MaxSteadyRate))
	fs.DurationVar(&f.SteadyDur, "steady-duration", workload.DefaultSteadyDuration, fmt.Sprintf("steady: length of the run (more than 0, at most %v; rate x duration at most %d calls)", workload.MaxDuration, workload.MaxSteadyCalls))
	fs.DurationVar(&f.Budget, "ceiling-budget", workload.DefaultCeilingBudget, fmt.Sprintf("burst and steady: a strict subject whose ceiling is far below the workload's demand "+
		"is asked for no more than its ceiling serves in this long (fewer IDs, said in its note; more than 0, at most %v)", workload.MaxDuration))
	fs.BoolVar(&f.Events, "events", true, "count hardware (or software) events around bursts")
}

// check reports the first flag out of range, naming it: each flag's field
// is checked alone by its workload's Validate, whose error names the
// field, not the flag; -rate and -steady-duration are checked together,
// as their product is bounded too. The library
// would take a zero as its default; a flag set to zero is refused,
// because its user asked for zero, not for the default.
func (f *Flags) check() error {
	for _, c := range []struct {
		flag  string
		value any
		zero  bool
		err   error
	}{
		{"n", f.IDs, f.IDs == 0, workload.BurstConfig{IDs: f.IDs}.Validate()},
		{"g", f.Goroutines, f.Goroutines == 0, workload.BurstConfig{Goroutines: f.Goroutines}.Validate()},
		{"repeats", f.Repeats, f.Repeats == 0, workload.BurstConfig{Repeats: f.Repeats}.Validate()},
		{"pause", f.Pause, false, workload.BurstConfig{Pause: f.Pause}.Validate()},
		{"duration", f.Duration, f.Duration == 0, workload.SaturateConfig{Duration: f.Duration}.Validate()},
		{"sat-repeats", f.SatRepeats, f.SatRepeats == 0, workload.SaturateConfig{Repeats: f.SatRepeats}.Validate()},
		{"ceiling-budget", f.Budget, f.Budget == 0, workload.SteadyConfig{CeilingBudget: f.Budget}.Validate()},
		{"rate", f.Rate, f.Rate == 0, nil},
		{"steady-duration", f.SteadyDur, f.SteadyDur == 0, nil},
		{"rate", fmt.Sprintf("%v with -steady-duration %v", f.Rate, f.SteadyDur), false,
			workload.SteadyConfig{Rate: f.Rate, Duration: f.SteadyDur}.Validate()},
	} {
		switch {
		case c.zero:
			return fmt.Errorf("-%s %v: want more than 0", c.flag, c.value)
		case c.err != nil:
			return fmt.Errorf("-%s %v: %w", c.flag, c.value, c.err)
		}
	}
	return nil
}

func (f *Flags) Suite(all []subject.Subject) (lab.Suite, error) {
	subs, err := Select(f.Subjects, all)
	if err != nil {
		return lab.Suite{}, err
	}
	var w lab.Workloads
	for _, name := range strings.Split(f.Workloads, ",") {
		switch strings.TrimSpace(name) {
		case "burst":
			w.Burst = true
		case "saturate":
			w.Saturate = true
		case "steady":
			w.Steady = true
		default:
			return lab.Suite{}, fmt.Errorf("-workloads: unknown workload %q (want burst, saturate, steady)", name)
		}
	}
	var sweep []int
	if f.Sweep != "" {
		if sweep, err = IntList("sweep", f.Sweep, 1, workload.MaxGoroutines); err != nil {
			return lab.Suite{}, err
		}
	}
	if err := f.check(); err != nil {
		return lab.Suite{}, err
	}
	return lab.Suite{
		Subjects:    subs,
		Workloads:   w,
		Burst:       lab.BurstConfig{IDs: f.IDs, Goroutines: f.Goroutines, Repeats: f.Repeats, Pause: f.Pause, CeilingBudget: f.Budget},
		Saturate:    lab.SaturateConfig{Goroutines: sweep, Duration: f.Duration, Repeats: f.SatRepeats},
		Steady:      lab.SteadyConfig{Rate: f.Rate, Duration: f.SteadyDur, CeilingBudget: f.Budget},
		CountEvents: f.Events,
	}, nil
}

// IntList reads flag name's comma list of integers from lo to hi, each
// once, in the order given.
func IntList(name, spec string, lo, hi int) ([]int, error) {
	var out []int
	for _, s := range strings.Split(spec, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < lo || v > hi {
			return nil, fmt.Errorf("-%s: %q is not a number from %d to %d", name, s, lo, hi)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// All is every subject in the order a run measures them:
// snowlab's generators, the physical limits they are read against, then
// the peers.
func All() []subject.Subject { return WithLimits(subject.Own(1)) }

// WithLimits appends the physical limits and the peers to own.
func WithLimits(own []subject.Subject) []subject.Subject {
	return append(append(own, subject.Limits()...), peers.All()...)
}

// Select picks subjects from all by group, exact name or name
// prefix, each once, in the order first picked.
func Select(spec string, all []subject.Subject) ([]subject.Subject, error) {
	var out []subject.Subject
	seen := map[string]bool{}
	for _, want := range strings.Split(spec, ",") {
		want = strings.TrimSpace(want)
		matched := false
		for _, s := range all {
			switch {
			case want == "all",
				want == "own" && !s.Peer && !s.Physical,
				want == "peers" && s.Peer,
				s.Name == want, strings.HasPrefix(s.Name, want+"/"):
				matched = true
				if !seen[s.Name] {
					seen[s.Name] = true
					out = append(out, s)
				}
			}
		}
		if !matched {
			return nil, fmt.Errorf("-subjects: no subject matches %q (see loadgen list)", want)
		}
	}
	return out, nil
}

// WriteList writes a line per subject: its name, whether it is snowlab's,
// a peer or a limit, its policy and its ceiling. The error is the first
// write's that failed.
func WriteList(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, s := range All() {
		kind := "snowlab"
		switch {
		case s.Peer:
			kind = "peer"
		case s.Physical:
			kind = "limit"
		}
		ceiling := "no per-tick limit"
		if s.Physical {
			ceiling = "the least per ID: clock read + one atomic step (" + strings.TrimPrefix(s.Name, "limit/") + ")"
		}
		if c := s.Ceiling(); c > 0 && s.Strict {
			ceiling = fmt.Sprintf("strict ceiling %.4g IDs/s", c)
		} else if c > 0 {
			ceiling = fmt.Sprintf("layout rate %.4g IDs/s (borrows past it)", c)
		}
		policy := map[bool]string{true: "strict", false: "borrows"}[s.Strict]
		if s.Physical {
			policy = "-"
		}
		fmt.Fprintf(bw, "%-42s %-8s %-8s %s\n", s.Name, kind, policy, ceiling)
	}
	return bw.Flush()
}
