package contention

import (
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/hog"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// errOptions is wrapped by every error about an option out of range.
var errOptions = errors.New("contention: option out of range")

// options configure a run. flags.Options fills them from the command
// line; zero fields are not defaulted here.
type options struct {
	// Factor is k in G=kP: the oversubscribed goroutines per P.
	Factor int
	// Duration is one oversubscription repeat; PlaceDuration one
	// placement repeat; Repeats how many of each.
	Duration, PlaceDuration time.Duration
	Repeats                 int
	// HogThreads is the hog's busy goroutines (the CPUs the process may
	// run on by default: one competitor per CPU).
	HogThreads int
	// PlaceG is the goroutines the placement sweep places (2 to 8).
	PlaceG int
	// Parts are "oversubscription" and/or "placement".
	Parts []string
	// Subjects are the oversubscribed subjects (snowlab's own).
	Subjects []subject.Subject
	// Procs is GOMAXPROCS, P in the conditions.
	Procs int
	// HogCommand starts the hog's child (nil: this executable's `hog`).
	HogCommand func(threads int, max time.Duration) (*exec.Cmd, error)
	// Host, when set, is recorded instead of host.Probe() (tests).
	Host *result.Host
}

// placeDuration is one placement repeat's length.
const placeDuration = 100 * time.Millisecond

// flags are loadgen contention's flags.
type flags struct {
	factor, repeats, hogThreads, placeG int
	duration                            time.Duration
	parts, subjects                     string
}

// register adds the flags to fs.
func (f *flags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.factor, "factor", 8, "oversubscription: k in G = k x GOMAXPROCS goroutines (2 to 64)")
	fs.DurationVar(&f.duration, "duration", 200*time.Millisecond, "oversubscription: one repeat's length (10ms to 10s)")
	fs.IntVar(&f.repeats, "repeats", 3, "repeats of every point, interleaved round by round (1 to 20)")
	fs.IntVar(&f.hogThreads, "hog", 0, "the hog's busy goroutines, in a child process; 0 is one per CPU this process may run on")
	fs.IntVar(&f.placeG, "place-g", 2, "placement: goroutines placed (2 to 8: the adjacent layout's words share one 64-byte line)")
	fs.StringVar(&f.parts, "parts", "oversubscription,placement", "what to run: oversubscription, placement (the padding A/B at every placement)")
	fs.StringVar(&f.subjects, "subjects", "", "oversubscription: the subjects, comma-separated (default: snowlab's generators, mutexgen the mutex baseline)")
}

// options checks the flags and returns the run's options.
func (f *flags) Options() (options, error) {
	bad := func(format string, a ...any) (options, error) {
		return options{}, fmt.Errorf("%w: %s", errOptions, fmt.Sprintf(format, a...))
	}
	switch {
	case f.factor < 2 || f.factor > 64:
		return bad("-factor %d: want 2 to 64", f.factor)
	case f.duration < 10*time.Millisecond || f.duration > 10*time.Second:
		return bad("-duration %v: want 10ms to 10s", f.duration)
	case f.repeats < 1 || f.repeats > 20:
		return bad("-repeats %d: want 1 to 20", f.repeats)
	case f.hogThreads < 0 || f.hogThreads > hog.MaxThreads:
		return bad("-hog %d: want 0 to %d", f.hogThreads, hog.MaxThreads)
	case f.placeG < 2 || f.placeG > maxAdjacent:
		return bad("-place-g %d: want 2 to %d", f.placeG, maxAdjacent)
	}
	o := options{Factor: f.factor, Duration: f.duration, PlaceDuration: placeDuration, Repeats: f.repeats,
		HogThreads: f.hogThreads, PlaceG: f.placeG, Procs: runtime.GOMAXPROCS(0)}
	if o.HogThreads == 0 {
		o.HogThreads = min(runtime.NumCPU(), hog.MaxThreads) // NumCPU counts the CPUs the affinity allows
	}
	for _, p := range strings.Split(f.parts, ",") {
		if p = strings.TrimSpace(p); p != partOversub && p != partPlacement {
			return bad("-parts %q: want oversubscription and/or placement", p)
		}
		o.Parts = append(o.Parts, p)
	}
	own := subject.Own(1)
	if f.subjects == "" {
		o.Subjects = own
		return o, nil
	}
	for _, name := range strings.Split(f.subjects, ",") {
		i := slices.IndexFunc(own, func(s subject.Subject) bool { return s.Name == strings.TrimSpace(name) })
		if i < 0 {
			return bad("-subjects: %q is not one of snowlab's generators (loadgen list)", name)
		}
		o.Subjects = append(o.Subjects, own[i])
	}
	return o, nil
}

// The parts of a run.
const (
	partOversub   = "oversubscription"
	partPlacement = "placement"
)
