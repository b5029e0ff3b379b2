package runner

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Protocol names the request and answer format of -serve; loadgen refuses
// a runner that speaks another.
const Protocol = "snowlab-ab/1"

// Subject is one generator the runner measures.
type Subject struct {
	// Name names it on loadgen's command line and in its reports: no
	// spaces (a slash-separated path such as "mine/counter").
	Name string
	// New makes a generator and returns the call that mints one ID. A
	// runner process calls it once, the first time the subject is
	// measured, checked or counted, and then calls Next from many
	// goroutines at once.
	New func() (Next func() (uint64, error), err error)
	// Fixed, when set, is New for count mode (loadgen instr): the same
	// generator on a clock that stands still (clocksrc.FixedMillis for a
	// snowlab generator), so that every call takes the same path on every
	// run. On a moving clock a count depends on how fast valgrind ran:
	// under it a call is some 50 times slower, so more of them start a
	// new tick, a longer path (counts of one build moved by 1-2%).
	Fixed func() (Next func() (uint64, error), err error)
	// Increasing is whether each goroutine's IDs increase, as a
	// Snowflake generator promises of one caller: set, a smaller or equal
	// ID than the goroutine's previous one is an order violation.
	Increasing bool
}

// Main runs the runner over subjects with the command line's arguments and
// exits: 0, 1 when a subject failed (an error, an order violation, a
// duplicate), 2 for bad input.
func Main(subjects ...Subject) {
	os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, subjects))
}

// errUsage is bad input: a flag, a subject's name, a count.
var errUsage = errors.New("bad input")

// Run is Main without the exit, reading requests from stdin under -serve:
// it returns the exit status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, subjects []Subject) int {
	fs := flag.NewFlagSet("runner", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.Bool("list", false, "name the subjects and exit")
	serve := fs.Bool("serve", false, "answer loadgen ab's requests on stdin and stdout")
	path := fs.String("path", "", "count mode (loadgen instr): the subject to call")
	n := fs.Int("n", 0, "count mode: how many calls")
	steps := fs.Int("inject-steps", 0, "count mode: a planted regression, this many extra loop steps after each call (loadgen instr -inject)")
	calls := fs.Int("plant-calls", 0, "the planted extra calls, per 1,024 (a build with the snowlab_plant_calls tag only)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	err := check(subjects)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if err == nil {
		err = setPlantCalls(*calls)
	}
	switch {
	case err != nil:
	case *list:
		for _, s := range subjects {
			fmt.Fprintln(stdout, s.Name)
		}
	case *serve:
		err = newServer(subjects).serve(stdin, stdout)
	case *path != "":
		err = count(subjects, *path, *n, *steps)
	default:
		err = fmt.Errorf("%w: want -list, -serve or -path NAME -n N", errUsage)
	}
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "runner: %v\n", err)
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

// plantCalls is the calls plant's q: of every 1,024 calls, q are made
// twice (read only in a build with the snowlab_plant_calls tag).
var plantCalls int

// setPlantCalls sets plantCalls, refusing a q out of range or one given
// to a build that plants no extra calls.
func setPlantCalls(q int) error {
	switch {
	case q != 0 && Plant != "calls":
		return fmt.Errorf("%w: -plant-calls %d: this runner plants %q: extra calls need the snowlab_plant_calls tag", errUsage, q, Plant)
	case q < 0 || q > 1<<20:
		return fmt.Errorf("%w: -plant-calls %d: want 0 to 2^20 (per 1,024 calls)", errUsage, q)
	}
	plantCalls = q
	return nil
}

// check refuses a subject list a runner cannot serve.
func check(subjects []Subject) error {
	if len(subjects) == 0 {
		return fmt.Errorf("%w: no subjects", errUsage)
	}
	seen := map[string]bool{}
	for _, s := range subjects {
		if s.Name == "" || strings.ContainsAny(s.Name, " \t\n") || seen[s.Name] || s.New == nil {
			return fmt.Errorf("%w: subject %q: want a unique name without spaces and a New", errUsage, s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

func lookup(subjects []Subject, name string) (Subject, error) {
	for _, s := range subjects {
		if s.Name == name {
			return s, nil
		}
	}
	return Subject{}, fmt.Errorf("%w: no subject %q (-list names them)", errUsage, name)
}

// count is count mode: n calls of the subject on this goroutine, through
// the loop the timed slices run, with spin(steps) after each call when
// steps > 0.
func count(subjects []Subject, name string, n, steps int) error {
	s, err := lookup(subjects, name)
	if err != nil {
		return err
	}
	if n < 0 || steps < 0 {
		return fmt.Errorf("%w: -n %d -inject-steps %d: want counts of 0 or more", errUsage, n, steps)
	}
	newNext := s.New
	if s.Fixed != nil {
		newNext = s.Fixed
	}
	next, err := newNext()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if steps > 0 {
		clean := next
		next = func() (uint64, error) {
			id, err := clean()
			spin(steps)
			return id, err
		}
	}
	w := newWorker(0)
	if err := mint(next, n, w); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if s.Increasing && w.bad > 0 {
		return fmt.Errorf("%s: %d IDs not above the one before", name, w.bad)
	}
	return nil
}

// spinSink keeps spin's loop from being optimised away: every step loads,
// adds to and stores a package-level word.
var spinSink uint64

// spin is the instruction-count gate's planted regression (loadgen instr
// -inject, count mode's -inject-steps): steps extra loop iterations after
// each call, a few instructions each (loadgen instr measures how many and
// sizes steps to the percentage asked for). It touches no shared state a
// generator reads, so it changes the instruction count and nothing else.
// It is small enough to inline, so one step adds its loop body alone
// (about 4 instructions on amd64) and no call: the smallest paths (about
// 120 instructions) can then be slowed by about 3%, as the gate must
// catch. The timed slices never run it.
func spin(steps int) {
	for i := 0; i < steps; i++ {
		spinSink += uint64(i)
	}
}
