package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/cpus"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/redact"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/report"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/vcs"
	"github.com/snowlab/snowlab/cmd/snowid/cli"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/peers"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/lab/workload"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/pglease"
)

const (
	exitOK      = 0
	exitFailure = 1 // a correctness failure, or a gate that did not pass
	exitUsage   = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	// command is the whole command line as typed, for the result files;
	// they redact any credential in it.
	command := append([]string{"loadgen"}, args...)
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 && isHelp(args[0]) {
		cmd = "help"
	}
	switch cmd {
	case "run":
		return runSuite(args, command, stdout, stderr)
	case "compare":
		return runCompare(args, stdout, stderr)
	case "check":
		return runCheck(args, command, stdout, stderr)
	case "export":
		return runExport(args, stdout, stderr)
	case "btree":
		return runBtree(args, command, stdout, stderr)
	case "alternatives":
		return runAlternatives(args, command, stdout, stderr)
	case "service":
		return runService(args, command, stdout, stderr)
	case "faults":
		return runFaults(args, command, stdout, stderr)
	case "list":
		return runList(stdout, stderr)
	case "history":
		return runHistory(args, stdout, stderr)
	case "publish":
		return runPublish(args, stdout, stderr)
	case "help":
		if _, err := fmt.Fprintln(stdout, usage); err != nil {
			return exitFailure
		}
		return exitOK
	}
	fmt.Fprintf(stderr, "loadgen: unknown command %q (run 'loadgen help' for the commands)\n", cmd)
	return exitUsage
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// parseFlags parses args into fs. It returns the exit code to stop with,
// or -1 to go on: -h prints the flags and exits 0, a bad flag is one line
// naming it (cli.ParseFlags, as snowid reports one) and exits 2.
func parseFlags(fs *flag.FlagSet, args []string) int {
	switch stop, ok := cli.ParseFlags(fs, args); {
	case stop && ok:
		return exitOK
	case stop:
		return exitUsage
	}
	return -1
}

const usage = `usage:
  loadgen [run] [flags]             run the suite (loadgen run -h for flags); writes
                                    results/local/, which git ignores
  loadgen compare OLD.json NEW.json compare two runs
  loadgen check [-baseline DIR|FILE.json]
                                    the CI regression gate (loadgen check -h)
  loadgen export [-format F] RUN.json
                                    a run for benchstat (gobench) or
                                    github-action-benchmark (benchmark-action,
                                    benchmark-action-costs)
  loadgen btree [-rows N] [-pg DSN] what the key costs a B-tree (loadgen btree -h)
  loadgen alternatives -pg DSN      ticket server, sequences, blocks, stride and snowlab
                                    on PostgreSQL (loadgen alternatives -h)
  loadgen service [-snowidd bin/snowidd]
                                    a local snowidd over gRPC and Connect beside
                                    the in-process generator (loadgen service -h)
  loadgen faults [-set short|full] a fleet of replicas on etcd under faults: leader
                                    killed, quorum lost, a replica cut off, clock
                                    steps, 1,024 holders at once (loadgen faults -h)
  loadgen history [-o FILE] [DIR|FILE.json ...]
                                    the history page of the results (index.html)
  loadgen publish [RUN.json ...]    copy runs (default: the newest in results/local)
                                    into results/, to commit, and refresh its index.html
  loadgen list                      list the subjects
  loadgen help                      this text`

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
	budget     time.Duration
	events     bool
}

func (f *suiteFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.subjects, "subjects", "all", "what to measure: all, own, peers, limit, or a comma list of names or name prefixes (see loadgen list)")
	fs.StringVar(&f.workloads, "workloads", "burst,saturate,steady", "comma list of workloads to run")
	fs.IntVar(&f.ids, "n", workload.DefaultBurstIDs, fmt.Sprintf("burst: IDs per fan-out burst (1 to %d)", workload.MaxBurstIDs))
	fs.IntVar(&f.goroutines, "g", workload.DefaultBurstGoroutines, fmt.Sprintf("burst: goroutines released together per burst (1 to %d)", workload.MaxGoroutines))
	fs.IntVar(&f.repeats, "repeats", workload.DefaultBurstRepeats, fmt.Sprintf("burst: bursts per subject, makespan samples (1 to %d)", workload.MaxRepeats))
	fs.DurationVar(&f.pause, "pause", workload.DefaultBurstPause, fmt.Sprintf("burst: pause between bursts (0 to %v)", workload.MaxPause))
	fs.StringVar(&f.sweep, "sweep", "", fmt.Sprintf("saturate: comma list of goroutine counts, each 1 to %d (default 1,2,4,… up to 2 x GOMAXPROCS)", workload.MaxGoroutines))
	fs.DurationVar(&f.duration, "duration", workload.DefaultSaturateDuration, fmt.Sprintf("saturate: length of one repeat (more than 0, at most %v)", workload.MaxDuration))
	fs.IntVar(&f.satRepeats, "sat-repeats", workload.DefaultSaturateRepeats, fmt.Sprintf("saturate: repeats per goroutine count, IDs/s samples (1 to %d)", workload.MaxRepeats))
	fs.Float64Var(&f.rate, "rate", workload.DefaultSteadyRate, fmt.Sprintf("steady: target calls per second, open loop (more than 0, at most %g)", workload.MaxSteadyRate))
	fs.DurationVar(&f.steadyDur, "steady-duration", workload.DefaultSteadyDuration, fmt.Sprintf("steady: length of the run (more than 0, at most %v; rate x duration at most %d calls)", workload.MaxDuration, workload.MaxSteadyCalls))
	fs.DurationVar(&f.budget, "ceiling-budget", workload.DefaultCeilingBudget, fmt.Sprintf("burst and steady: a strict subject whose ceiling is far below the workload's demand "+
		"is asked for no more than its ceiling serves in this long (fewer IDs, said in its note; more than 0, at most %v)", workload.MaxDuration))
	fs.BoolVar(&f.events, "events", true, "count hardware (or software) events around bursts")
}

// check reports the first flag out of range, naming it and its value. The
// library would take a zero as its default; a flag set to zero is refused,
// because its user asked for zero, not for the default.
func (f *suiteFlags) check() error {
	intRange := func(name string, v, lo, hi int, what string) error {
		if v < lo || v > hi {
			return fmt.Errorf("-%s %d: want %d to %d %s", name, v, lo, hi, what)
		}
		return nil
	}
	durRange := func(name string, v, hi time.Duration) error {
		if v <= 0 || v > hi {
			return fmt.Errorf("-%s %v: want more than 0, at most %v", name, v, hi)
		}
		return nil
	}
	for _, err := range []error{
		intRange("n", f.ids, 1, workload.MaxBurstIDs, "IDs"),
		intRange("g", f.goroutines, 1, workload.MaxGoroutines, "goroutines"),
		intRange("repeats", f.repeats, 1, workload.MaxRepeats, "repeats"),
		intRange("sat-repeats", f.satRepeats, 1, workload.MaxRepeats, "repeats"),
		durRange("duration", f.duration, workload.MaxDuration),
		durRange("steady-duration", f.steadyDur, workload.MaxDuration),
		durRange("ceiling-budget", f.budget, workload.MaxDuration),
	} {
		if err != nil {
			return err
		}
	}
	switch {
	case f.pause < 0 || f.pause > workload.MaxPause:
		return fmt.Errorf("-pause %v: want 0 to %v", f.pause, workload.MaxPause)
	case math.IsNaN(f.rate) || f.rate <= 0 || f.rate > workload.MaxSteadyRate:
		return fmt.Errorf("-rate %v: want more than 0, at most %g calls/s", f.rate, workload.MaxSteadyRate)
	}
	if calls := f.rate * f.steadyDur.Seconds(); calls < 1 || calls > workload.MaxSteadyCalls {
		return fmt.Errorf("-rate %v with -steady-duration %v schedules %.3g calls: want 1 to %d", f.rate, f.steadyDur, calls, workload.MaxSteadyCalls)
	}
	return nil
}

func (f *suiteFlags) suite(all []subject.Subject) (lab.Suite, error) {
	if err := f.check(); err != nil {
		return lab.Suite{}, err
	}
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
			if err != nil || g < 1 || g > workload.MaxGoroutines {
				return lab.Suite{}, fmt.Errorf("-sweep: %q is not a goroutine count from 1 to %d", s, workload.MaxGoroutines)
			}
			sweep = append(sweep, g)
		}
	}
	sha, dirty := vcs.Commit()
	suite := lab.Suite{
		Subjects:    subs,
		Workloads:   w,
		Burst:       workload.BurstConfig{IDs: f.ids, Goroutines: f.goroutines, Repeats: f.repeats, Pause: f.pause, CeilingBudget: f.budget},
		Saturate:    workload.SaturateConfig{Goroutines: sweep, Duration: f.duration, Repeats: f.satRepeats},
		Steady:      workload.SteadyConfig{Rate: f.rate, Duration: f.steadyDur, CeilingBudget: f.budget},
		CountEvents: f.events,
		Commit:      sha,
		Dirty:       dirty,
	}
	// The flags are checked above; this catches a limit the library
	// adds later, still as a usage error.
	return suite, suite.Validate()
}

// allSubjects is every subject in the order a run measures them:
// snowlab's generators, the physical limits they are read against, then
// the peers.
func allSubjects() []subject.Subject { return withLimits(subject.Own(1)) }

// withLimits appends the physical limits and the peers to own.
func withLimits(own []subject.Subject) []subject.Subject {
	return append(append(own, subject.Limits()...), peers.All()...)
}

// selectSubjects picks subjects from all by group, exact name or name
// prefix.
func selectSubjects(spec string, all []subject.Subject) ([]subject.Subject, error) {
	var out []subject.Subject
	seen := map[string]bool{}
	add := func(s subject.Subject) {
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
				want == "own" && !s.Peer && !s.Physical,
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

func seenAny(all []subject.Subject, want string, seen map[string]bool) bool {
	for _, s := range all {
		if seen[s.Name] && (s.Name == want || strings.HasPrefix(s.Name, want+"/")) {
			return true
		}
	}
	return false
}

// etcdPasswordVar holds the etcd user's password for -lease etcd: when
// -etcd-password-file does not: loadgen's own variable, not etcdctl's
// ETCDCTL_PASSWORD, so that a shell set up for etcdctl as another user
// does not lend loadgen that user.
const etcdPasswordVar = "LOADGEN_ETCD_PASSWORD"

// leaseTTL is the TTL of a -lease on etcd or PostgreSQL: a lab run that
// dies frees its node ids this long after.
const leaseTTL = 10 * time.Second

func runSuite(args, command []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf suiteFlags
	sf.register(fs)
	out := fs.String("out", defaultOut(), "folder for the result files (JSON, Markdown, SVG charts); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	leaseSpec := fs.String("lease", "", "mint snowlab's generators under a nodeid lease on GOMAXPROCS node ids: dir:`PATH`, "+
		"etcd:HOST:PORT/PREFIX (etcd:https://… for TLS: see -etcd-*) or pg:DSN (a PostgreSQL table)")
	etcd := etcdlease.NewFlags(etcdPasswordVar, os.LookupEnv)
	etcd.Register(fs)
	quiet := fs.Bool("q", false, "no progress bar")
	procs := fs.Int("gomaxprocs", 0, fmt.Sprintf("run with runtime.GOMAXPROCS set to N, 1 to %d (0: leave it; the result's host records it), "+
		"so that one binary can sweep core counts", cpus.MaxProcs))
	cpuSpec := fs.String("cpus", "", "run on these CPUs only, e.g. 0,1 or 0-3 (Linux; the result's host records them as affinity); "+
		"GOMAXPROCS follows their count unless -gomaxprocs is set")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadgen run: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *procs < 0 || *procs > cpus.MaxProcs {
		fmt.Fprintf(stderr, "loadgen run: -gomaxprocs %d: want 1 to %d (0: leave it)\n", *procs, cpus.MaxProcs)
		return exitUsage
	}
	// Before the subjects are built: sharded ones size themselves by
	// GOMAXPROCS.
	restore, err := cpus.Bind(*cpuSpec, *procs)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen run: %v\n", err)
		return exitUsage
	}
	defer restore()
	all := allSubjects()
	leaseSet := false
	fs.Visit(func(f *flag.Flag) { leaseSet = leaseSet || f.Name == "lease" })
	if etcd.Given() && !strings.HasPrefix(*leaseSpec, "etcd:") {
		fmt.Fprintf(stderr, "loadgen run: the -etcd-* flags are for -lease etcd:…, not -lease %q\n", redact.String(*leaseSpec))
		return exitUsage
	}
	if leaseSet {
		// An empty -lease is a spec like any other: refused, not read as
		// no lease.
		stores := map[string]nodeid.Opener{"etcd": etcd.Opener(leaseTTL), "pg": pglease.Opener(leaseTTL)}
		store, err := nodeid.OpenStore(*leaseSpec, stores)
		if err != nil {
			fmt.Fprintf(stderr, "loadgen run: -lease: %s\n", redact.String(err.Error()))
			return exitUsage
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		lease, err := nodeid.Acquire(ctx, store, nodeid.Options{Count: runtime.GOMAXPROCS(0)})
		cancel()
		if err != nil {
			// The spec is right: the store failed (or has no free ids).
			fmt.Fprintf(stderr, "loadgen run: -lease %q: %s\n", redact.String(*leaseSpec), redact.String(err.Error()))
			return exitFailure
		}
		defer lease.Release(context.Background())
		all = withLimits(subject.OwnWith(lease.Config(snowlab.Config{})))
	}
	suite, err := sf.suite(all)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen run: %v\n", err)
		return exitUsage
	}
	suite.Command = command
	bar := newProgress(stderr, *quiet, suite.Steps())
	suite.Progress = bar.step
	res, err := suite.Measure()
	bar.finish()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return exitFailure
	}
	if err := report.WriteTable(stdout, res); err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return exitFailure
	}
	if cuts := lab.Cuts(res); len(cuts) > 0 {
		fmt.Fprintln(stdout)
		for _, c := range cuts {
			fmt.Fprintln(stdout, c)
		}
	}
	return finishSuiteRun("loadgen", *out, *noWrite, res, stdout, stderr)
}

// finishSuiteRun ends a subcommand that ran the suite (run, service): the
// result files unless noWrite, the history page of the folder refreshed
// beside them, and exit 1 when a check failed. what names the command in
// its messages.
func finishSuiteRun(what, out string, noWrite bool, res *result.Run, stdout, stderr io.Writer) int {
	if !noWrite {
		paths, err := report.WriteFiles(out, res)
		if err != nil {
			fmt.Fprintf(stderr, "%s: writing results: %v\n", what, err)
			return exitFailure
		}
		printWrote(stdout, paths)
		// The history page follows the folder: a result it cannot read
		// is said, and costs the run nothing.
		index := filepath.Join(out, report.IndexName)
		base, _ := readBaseline(filepath.FromSlash(baselineDir)) // none here: every gated ratio leads
		if n, err := writeHistory(index, historySources(out), base); err != nil {
			fmt.Fprintf(stderr, "%s: the history page was not refreshed: %v\n", what, err)
		} else {
			fmt.Fprintf(stdout, "wrote %s (%d runs)\n", index, n)
		}
	}
	if len(res.Failures) > 0 {
		fmt.Fprintf(stderr, "%s: correctness failures:\n", what)
		for _, f := range res.Failures {
			fmt.Fprintln(stderr, "  FAIL", f)
		}
		return exitFailure
	}
	return exitOK
}

// runList prints the subjects; it fails when stdout cannot be written (a
// full disk, a closed pipe), so that a script never reads a short list as
// the whole one.
func runList(stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	for _, s := range allSubjects() {
		kind := "snowlab"
		switch {
		case s.Peer:
			kind = "peer"
		case s.Physical:
			kind = "limit"
		}
		ceiling := "no per-tick limit"
		if s.Physical {
			ceiling = "the least per ID: clock read + one CAS"
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
		fmt.Fprintf(w, "%-42s %-8s %-8s %s\n", s.Name, kind, policy, ceiling)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "loadgen list: %v\n", err)
		return exitFailure
	}
	return exitOK
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

// step shows step i of n; a bar made before its count was known takes
// n from the first step.
func (p *progress) step(i, n int, what string) {
	if p.bar == nil {
		return
	}
	if n > 0 && n != p.bar.GetMax() {
		p.bar.ChangeMax(n)
	}
	p.bar.Describe(fmt.Sprintf("%-48s", what))
	_ = p.bar.Set(i)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
