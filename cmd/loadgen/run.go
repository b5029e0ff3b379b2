package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/peers"
	"github.com/snowlab/snowlab/nodeid"
)

const (
	exitOK      = 0
	exitFailure = 1 // a correctness failure, or a gate that did not pass
	exitUsage   = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "run":
		return runSuite(args, stdout, stderr)
	case "compare":
		return runCompare(args, stdout, stderr)
	case "check":
		return runCheck(args, stdout, stderr)
	case "btree":
		return runBtree(args, stdout, stderr)
	case "list":
		return runList(stdout)
	case "help":
		fmt.Fprintln(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "loadgen: unknown command %q\n%s\n", cmd, usage)
	return exitUsage
}

const usage = `usage:
  loadgen [run] [flags]             run the suite (loadgen run -h for flags)
  loadgen compare OLD.json NEW.json compare two runs
  loadgen check [-baseline DIR]     the CI regression gate
  loadgen btree [-rows N] [-pg DSN]  what the key costs a B-tree (loadgen btree -h)
  loadgen list                      list the subjects`

// suiteFlags are the flags that shape a suite, shared by run and check.
type suiteFlags struct {
	subjects   string
	workloads  string
	ids        int
	goroutines int
	repeats    int
	pause      time.Duration
	sweep      string
	duration   time.Duration
	satRepeats int
	rate       float64
	steadyDur  time.Duration
	counters   bool
}

func (f *suiteFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.subjects, "subjects", "all", "what to measure: all, own, peers, or a comma list of names or name prefixes (see loadgen list)")
	fs.StringVar(&f.workloads, "workloads", "burst,saturate,steady", "comma list of workloads to run")
	fs.IntVar(&f.ids, "n", 100_000, "burst: IDs per fan-out burst")
	fs.IntVar(&f.goroutines, "g", 32, "burst: goroutines released together per burst")
	fs.IntVar(&f.repeats, "repeats", 3, "burst: bursts per subject (makespan samples)")
	fs.DurationVar(&f.pause, "pause", 20*time.Millisecond, "burst: pause between bursts")
	fs.StringVar(&f.sweep, "sweep", "", "saturate: comma list of goroutine counts (default 1,2,4,… up to 2 x GOMAXPROCS)")
	fs.DurationVar(&f.duration, "duration", 100*time.Millisecond, "saturate: length of one repeat")
	fs.IntVar(&f.satRepeats, "sat-repeats", 3, "saturate: repeats per goroutine count (IDs/s samples)")
	fs.Float64Var(&f.rate, "rate", 1e6, "steady: target calls per second (open loop)")
	fs.DurationVar(&f.steadyDur, "steady-duration", 300*time.Millisecond, "steady: length of the run")
	fs.BoolVar(&f.counters, "counters", true, "count hardware (or software) events around bursts")
}

func (f *suiteFlags) suite(all []lab.Subject) (lab.Suite, error) {
	subs, err := selectSubjects(f.subjects, all)
	if err != nil {
		return lab.Suite{}, err
	}
	var w lab.Workloads
	for _, name := range strings.Split(f.workloads, ",") {
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
	if f.sweep != "" {
		for _, s := range strings.Split(f.sweep, ",") {
			g, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || g < 1 {
				return lab.Suite{}, fmt.Errorf("-sweep: %q is not a goroutine count", s)
			}
			sweep = append(sweep, g)
		}
	}
	switch {
	case f.ids < 1:
		return lab.Suite{}, fmt.Errorf("-n %d: want at least 1 ID", f.ids)
	case f.goroutines < 1:
		return lab.Suite{}, fmt.Errorf("-g %d: want at least 1 goroutine", f.goroutines)
	case f.repeats < 1 || f.satRepeats < 1:
		return lab.Suite{}, errors.New("-repeats and -sat-repeats: want at least 1")
	case f.rate <= 0:
		return lab.Suite{}, fmt.Errorf("-rate %v: want a positive rate", f.rate)
	}
	return lab.Suite{
		Subjects:  subs,
		Workloads: w,
		Burst:     lab.BurstConfig{IDs: f.ids, Goroutines: f.goroutines, Repeats: f.repeats, Pause: f.pause},
		Saturate:  lab.SatConfig{Goroutines: sweep, Duration: f.duration, Repeats: f.satRepeats},
		Steady:    lab.SteadyConfig{Rate: f.rate, Duration: f.steadyDur},
		Counters:  f.counters,
		Commit:    commit(),
	}, nil
}

func allSubjects() []lab.Subject { return append(lab.Own(1), peers.All()...) }

// selectSubjects picks subjects from all by group, exact name or name
// prefix.
func selectSubjects(spec string, all []lab.Subject) ([]lab.Subject, error) {
	var out []lab.Subject
	seen := map[string]bool{}
	add := func(s lab.Subject) {
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	for _, want := range strings.Split(spec, ",") {
		want = strings.TrimSpace(want)
		n := len(out)
		for _, s := range all {
			switch {
			case want == "all",
				want == "own" && !s.Peer,
				want == "peers" && s.Peer,
				s.Name == want, strings.HasPrefix(s.Name, want+"/"):
				add(s)
			}
		}
		if len(out) == n && !seenAny(all, want, seen) {
			return nil, fmt.Errorf("-subjects: no subject matches %q (see loadgen list)", want)
		}
	}
	return out, nil
}

func seenAny(all []lab.Subject, want string, seen map[string]bool) bool {
	for _, s := range all {
		if seen[s.Name] && (s.Name == want || strings.HasPrefix(s.Name, want+"/")) {
			return true
		}
	}
	return false
}

func runSuite(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf suiteFlags
	sf.register(fs)
	out := fs.String("out", "results", "folder for the result files (JSON, Markdown, SVG charts)")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	leaseSpec := fs.String("lease", "", "mint snowlab's generators under a nodeid lease on GOMAXPROCS node ids: dir:`PATH`")
	quiet := fs.Bool("q", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadgen run: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	all := allSubjects()
	if *leaseSpec != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		lease, err := nodeid.AcquireSpec(ctx, *leaseSpec, nil, nodeid.Options{Count: runtime.GOMAXPROCS(0)})
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "loadgen run: -lease %q: %v\n", *leaseSpec, err)
			return exitUsage
		}
		defer lease.Release(context.Background())
		all = append(lab.OwnWith(lease.Config(snowlab.Config{})), peers.All()...)
	}
	suite, err := sf.suite(all)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen run: %v\n", err)
		return exitUsage
	}
	suite.Command = append([]string{"loadgen"}, os.Args[1:]...)
	bar := newProgress(stderr, *quiet, suite.Steps())
	suite.Progress = bar.step
	res, err := suite.Run()
	bar.finish()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return exitFailure
	}
	if err := lab.PrintTable(stdout, res); err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return exitFailure
	}
	if !*noWrite {
		paths, err := lab.WriteFiles(*out, res)
		if err != nil {
			fmt.Fprintf(stderr, "loadgen: writing results: %v\n", err)
			return exitFailure
		}
		fmt.Fprintln(stdout)
		for _, p := range paths {
			fmt.Fprintln(stdout, "wrote", p)
		}
	}
	if len(res.Failures) > 0 {
		fmt.Fprintln(stderr, "loadgen: correctness failures:")
		for _, f := range res.Failures {
			fmt.Fprintln(stderr, "  FAIL", f)
		}
		return exitFailure
	}
	return exitOK
}

func runList(stdout io.Writer) int {
	for _, s := range allSubjects() {
		kind := "snowlab"
		if s.Peer {
			kind = "peer"
		}
		ceiling := "no per-tick limit"
		if c := s.Ceiling(); c > 0 && s.Strict {
			ceiling = fmt.Sprintf("strict ceiling %.4g IDs/s", c)
		} else if c > 0 {
			ceiling = fmt.Sprintf("layout rate %.4g IDs/s (borrows past it)", c)
		}
		fmt.Fprintf(stdout, "%-42s %-8s %-8v %s\n", s.Name, kind, map[bool]string{true: "strict", false: "borrows"}[s.Strict], ceiling)
	}
	return exitOK
}

// commit is the short revision of the source tree loadgen runs from, with
// "+dirty" when it has uncommitted changes, or "" outside a git checkout.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	sha := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		sha += "+dirty"
	}
	return sha
}

// progress is a bar on stderr when stderr is a terminal, and nothing
// otherwise (CI logs, pipes, -q).
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(w io.Writer, quiet bool, steps int) *progress {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(steps,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) step(i, n int, what string) {
	if p.bar == nil {
		return
	}
	p.bar.Describe(fmt.Sprintf("%-48s", what))
	_ = p.bar.Set(i)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
