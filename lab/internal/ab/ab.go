// Package ab is loadgen ab: the throughput gate that compares two builds
// of the same generators in the same job, measured interleaved, and
// measures its own sensitivity where it runs.
//
// BuildRevisions checks the two revisions out into git worktrees and
// builds a runner in each (lab/runner: snowlab's own generators, or a
// user's main package with -pkg), with base's two planted runners beside
// them. Measure then runs rounds: each round starts a fresh process of
// every build, measures every workload (a subject on G goroutines, G = 1,
// GOMAXPROCS and twice that) once on each build, the builds of a workload
// one right after another in a random order, and stops the processes.
// Each slice reports its IDs, wall time and the time they cost: up to
// GOMAXPROCS its median batch of 512 calls (above G=1 of the batches its
// goroutines ran side by side, so that contention shows on a busy host),
// the process's CPU time above (lab/runner says why).
//
// The decision is on paired ratios: for each workload and round, head's
// time per ID over base's, a pair of slices a few tens of
// milliseconds apart, so that what the host does to both (another job, a
// frequency change, a neighbour's cache traffic) divides out. The stated
// test is Wilcoxon's signed-rank test on the log-ratios, exact (with the
// order of a pair drawn at random, the sign of a same-code pair's
// log-ratio is a coin toss, so the test is a randomisation test whatever
// the noise's shape), Holm-corrected over the workloads; the effect is the
// Hodges-Lehmann estimate with its distribution-free interval. Each
// workload is then DIFFERENT (significant and at least the minimum
// effect), SAME (its interval within the minimum effect both ways) or
// UNKNOWN, the rule loadgen's wall-time gate used (Chromium's Pinpoint
// decides alike); the gate fails only on DIFFERENT and worse, or on a
// correctness failure (an error, an ID out of a goroutine's order, a
// duplicate in the check each build's first process makes).
//
// The self-check rides in the same rounds, on the first subject: a second
// process of base (the same code: any DIFFERENT is a false alarm) at G=1
// and at G=GOMAXPROCS, base planted with extra calls (lab/runner's
// snowlab_plant_calls, sized from instruction counts under cachegrind
// when valgrind is there) at G=1, and base planted with a cache line
// every goroutine writes (snowlab_plant_shared) at G=GOMAXPROCS; each is
// decided as one of the gate's rows (Bonferroni over their count), so
// that every run says what it could detect, on that machine, at that
// moment.
package ab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

// Defaults of a run.
const (
	// DefaultRounds and DefaultSlice: 20 rounds of 50 ms slices. On this
	// repository's 2-core VM a slice pair's log-ratio at G=1 spread by
	// 2% (sd), so the 20-pair estimate's standard error is under 0.5%.
	DefaultRounds = 20
	DefaultSlice  = 50 * time.Millisecond
	// DefaultWarmup is minted unmeasured before every slice, so that a
	// slice does not pay for the caches the other build left.
	DefaultWarmup = 5 * time.Millisecond
	// DefaultPlantPct is the self-check's planted slowdown at G=1: this
	// many percent more calls than IDs.
	DefaultPlantPct = 5
	// checkIDs is how many IDs each build's correctness check mints per
	// subject, on its largest G, in the first round.
	checkIDs = 100_000
	// countCalls is the calls of a count when sizing the plant: about 13
	// million instructions for atomicgen, a second or two under
	// cachegrind. Counts of 6,250 calls (instr.Runner's N1 for 50,000)
	// moved by up to 88,000 instructions from run to run, 12,500 by under
	// 1,500.
	countCalls = 100_000
)

// The arms, by index into Schedule.Arms.
const (
	armBase = iota
	armHead
	armSame
	armCalls
	armShared
)

// Config is one run of loadgen ab.
type Config struct {
	// Base and Head are the two runners' binaries (Build's, or two a user
	// built); Calls and Shared base's planted runners ("" skips the
	// self-check).
	Base, Head, Calls, Shared string `json:"-"`
	// HeadArgs are more arguments for head's runner (a planted runner's
	// -plant-calls, where loadgen gates gates a plant as head).
	HeadArgs []string `json:"-"`
	// Subjects measured (all the runner has where empty) and goroutine
	// counts (1, GOMAXPROCS and twice that where empty).
	Subjects []string `json:"-"`
	Gs       []int    `json:"-"`
	Options
	// Rounds: each round starts a fresh process of every build, measures
	// every workload once, and stops the processes. Slice is how long
	// each measured slice mints, after Warmup unmeasured.
	Rounds int           `json:"rounds"`
	Slice  time.Duration `json:"slice_ns"`
	Warmup time.Duration `json:"warmup_ns"`
	// PlantPct is the calls plant's size, percent more calls; Valgrind
	// counts its instructions where it is found.
	PlantPct float64 `json:"-"`
	Valgrind string  `json:"-"`
	// Seed seeds the order; Progress, when set, is told each step (a
	// round as it begins).
	Seed     uint64       `json:"seed"`
	Progress func(string) `json:"-"`
}

// Result is one run: its Config, the Options defaulted.
type Result struct {
	Config
	GOMAXPROCS int `json:"gomaxprocs"`
	// CPU is whether the decision is on CPU time (false: wall time, off
	// Linux).
	CPU bool `json:"cpu"`
	// Rows are the gate's, one per workload.
	Rows []Row `json:"rows"`
	// selfCheck is nil where it was not run.
	SelfCheck *selfCheck    `json:"self_check,omitempty"`
	Failures  []string      `json:"correctness_failures,omitempty"`
	Load      *result.Load  `json:"load"`
	Took      time.Duration `json:"measure_ns"`
}

// selfCheck is what the run could detect where and when it ran.
type selfCheck struct {
	// Same are the same-code comparisons: a second process of base.
	Same []Row `json:"same"`
	// Calls is base planted with PlantCalls extra calls per 1,024 at
	// G=1; CallsInstr what that added to the instructions per call
	// (counted under cachegrind; NaN, absent, where not counted).
	Calls      Row      `json:"calls"`
	PlantCalls int      `json:"plant_calls"`
	CallsInstr *float64 `json:"calls_instr_change,omitempty"`
	// Shared is base planted with a shared cache line at G=GOMAXPROCS;
	// SharedInstr what it added to the instructions per call at G=1,
	// which the instruction gate judges.
	Shared      Row      `json:"shared"`
	SharedInstr *float64 `json:"shared_instr_change,omitempty"`
	// Contention is base's cost per ID at the shared plant's G over its
	// cost at G=1: how much the host let the goroutines run side by side
	// (near 1: they seldom did, and no contention shows).
	Contention float64 `json:"contention"`
	// Why are the self-check's goals missed: a same-code DIFFERENT, the
	// G=1 plant not caught.
	Missed []string `json:"missed,omitempty"`
}

// ErrUsage is a configuration that cannot run.
var ErrUsage = errors.New("ab: bad input")

// Err says why the gate fails: a row DIFFERENT and worse, a correctness
// failure; nil when it passes.
func (r *Result) Err() error {
	var errs []error
	if f := slices.DeleteFunc(slices.Clone(r.Rows), func(row Row) bool { return !row.Worse }); len(f) > 0 {
		errs = append(errs, fmt.Errorf("%d workload(s) DIFFERENT and worse, first %s (%+.1f%%)", len(f), f[0].Workload, 100*f[0].Change))
	}
	if n := len(r.Failures); n > 0 {
		errs = append(errs, fmt.Errorf("%d correctness failure(s), first: %s", n, r.Failures[0]))
	}
	return errors.Join(errs...)
}

// Check refuses a configuration that cannot run (ErrUsage, ErrOptions),
// before anything is built.
func (cfg Config) Check() error {
	if _, err := cfg.Options.WithDefaults(); err != nil {
		return err
	}
	if cfg.Rounds < 2 || cfg.Rounds > 100_000 || cfg.Slice <= 0 || cfg.Slice > time.Minute || cfg.Warmup < 0 || cfg.Warmup > time.Minute ||
		math.IsNaN(cfg.PlantPct) || cfg.PlantPct <= 0 || cfg.PlantPct > 100 {
		return fmt.Errorf("%w: %d rounds of %v slices, %v warm-up, a %g%% plant: want 2 to 100000 rounds, a slice above 0 and a warm-up of at most a minute, a plant above 0 up to 100%%",
			ErrUsage, cfg.Rounds, cfg.Slice, cfg.Warmup, cfg.PlantPct)
	}
	for _, g := range cfg.Gs {
		if g < 1 || g > 1<<16 {
			return fmt.Errorf("%w: %d goroutines: want 1 to 65536", ErrUsage, g)
		}
	}
	return nil
}

// Run measures cfg's builds and decides.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg.PlantPct = cmp.Or(cfg.PlantPct, DefaultPlantPct)
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg.Options, _ = cfg.Options.WithDefaults()
	if cfg.Progress == nil {
		cfg.Progress = func(string) {}
	}
	hello, err := hello(ctx, arm{Name: "base", Bin: cfg.Base})
	if err != nil {
		return nil, err
	}
	if len(cfg.Subjects) == 0 {
		cfg.Subjects = hello.Subjects
	}
	for _, s := range cfg.Subjects {
		if !slices.Contains(hello.Subjects, s) {
			return nil, fmt.Errorf("%w: no subject %q in base's runner (it has %v)", ErrUsage, s, hello.Subjects)
		}
	}
	p := hello.GOMAXPROCS
	if len(cfg.Gs) == 0 {
		cfg.Gs = []int{1, p, 2 * p}
	}
	cfg.Gs = slices.Compact(slices.Sorted(slices.Values(cfg.Gs)))
	if n := len(cfg.Subjects) * len(cfg.Gs); cfg.Rounds < minRounds(n, cfg.Alpha) {
		return nil, fmt.Errorf("%w: %d rounds: with n pairs the signed-rank test's least p is 2/2^n, and Holm holds the least of %d workloads to alpha/%d = %.2g: no workload could be DIFFERENT under %d rounds",
			ErrUsage, cfg.Rounds, n, n, cfg.Alpha/float64(n), minRounds(n, cfg.Alpha))
	}
	m := &measurement{Config: cfg, Arms: []arm{{Name: "base", Bin: cfg.Base}, {Name: "head", Bin: cfg.Head, Args: cfg.HeadArgs}}, CPU: true}
	for _, sub := range cfg.Subjects {
		for _, g := range cfg.Gs {
			m.Cells = append(m.Cells, cell{Workload: Workload{sub, g}, Arms: []int{armBase, armHead}})
		}
	}
	rows := len(m.Cells) // the self-check's cells follow
	var sc *selfCheck
	if cfg.Calls != "" && cfg.Shared != "" {
		sc = &selfCheck{}
		if sc.PlantCalls, err = sizePlant(ctx, cfg, sc); err != nil {
			return nil, err
		}
		m.Arms = append(m.Arms, arm{Name: "same", Bin: cfg.Base},
			arm{Name: "calls", Bin: cfg.Calls, Plant: "calls", Args: []string{"-plant-calls", fmt.Sprint(sc.PlantCalls)}},
			arm{Name: "shared", Bin: cfg.Shared, Plant: "shared"})
		m.addArms(Workload{cfg.Subjects[0], 1}, armSame, armCalls)
		m.addArms(Workload{cfg.Subjects[0], contendedG(p)}, armSame, armShared)
	}
	res := &Result{Config: cfg, GOMAXPROCS: p}
	meter := host.StartLoad()
	start := time.Now()
	err = m.measure(ctx)
	res.Took, res.Load = time.Since(start), meter.Stop()
	if err != nil {
		return nil, err
	}
	res.CPU, res.Failures = m.CPU, m.Failures
	for _, c := range m.Cells[:rows] {
		res.Rows = append(res.Rows, m.compare(c.Workload, armBase, armHead))
	}
	decide(res.Rows, cfg.Options, rows)
	if sc != nil {
		m.selfCheck(sc, contendedG(p), rows)
		res.SelfCheck = sc
	}
	return res, nil
}

// selfCheck decides sc's rows, the first subject's at G=1 and gc,
// against base, each held to the gate's Holm level over rows workloads,
// and says what it missed.
func (m *measurement) selfCheck(sc *selfCheck, gc, rows int) {
	one, contended := Workload{m.Subjects[0], 1}, Workload{m.Subjects[0], gc}
	sc.Same = []Row{m.compare(one, armBase, armSame), m.compare(contended, armBase, armSame)}
	plants := []Row{m.compare(one, armBase, armCalls), m.compare(contended, armBase, armShared)}
	decide(sc.Same, m.Options, rows)
	decide(plants, m.Options, rows)
	sc.Calls, sc.Shared = plants[0], plants[1]
	if base1 := m.median(one, armBase); base1 > 0 {
		sc.Contention = m.median(contended, armBase) / base1
	}
	for _, r := range sc.Same {
		if r.Decision == Different {
			sc.Missed = append(sc.Missed, fmt.Sprintf("same code DIFFERENT at %s (%+.1f%%): a false alarm", r.Workload, 100*r.Change))
		}
	}
	if !sc.Calls.Worse {
		sc.Missed = append(sc.Missed, fmt.Sprintf("the planted %d/1024 extra calls at G=1 were not caught (%s, %+.1f%%)", sc.PlantCalls, sc.Calls.Decision, 100*sc.Calls.Change))
	}
}

// minRounds is the fewest rounds with which a workload can be DIFFERENT
// among m at alpha: the signed-rank test's least two-sided p over n pairs
// is 2/2^n, and Holm's correction holds the smallest of m to alpha/m.
func minRounds(m int, alpha float64) int {
	n := 1
	for math.Ldexp(2, -n)*float64(m) > alpha {
		n++
	}
	return n
}

// contendedG is the G the contention plant is measured at: GOMAXPROCS,
// or 2 where that is 1.
func contendedG(p int) int { return max(p, 2) }

// addArms adds arms to w's cell, or a cell for w with base and them.
func (m *measurement) addArms(w Workload, arms ...int) {
	if i := m.cell(w); i >= 0 {
		m.Cells[i].Arms = append(m.Cells[i].Arms, arms...)
	} else {
		m.Cells = append(m.Cells, cell{Workload: w, Arms: append([]int{armBase}, arms...)})
	}
}

// cell is w's index in Cells, -1 where it has none.
func (m *measurement) cell(w Workload) int {
	return slices.IndexFunc(m.Cells, func(c cell) bool { return c.Workload == w })
}

// pairs are the costs per ID and the wall rates of arms a and b on w, in
// the rounds that measured both.
func (m *measurement) pairs(w Workload, a, b int) (ca, cb, ra, rb []float64) {
	c := m.cell(w)
	by := map[int][2]*sample{}
	for i := range m.Samples {
		x := &m.Samples[i]
		if x.Cell != c || (x.Arm != a && x.Arm != b) {
			continue
		}
		v := by[x.Round]
		v[map[bool]int{true: 0, false: 1}[x.Arm == a]] = x
		by[x.Round] = v
	}
	for r := range m.Rounds {
		v, ok := by[r]
		if !ok || v[0] == nil || v[1] == nil {
			continue
		}
		ca, cb = append(ca, v[0].perID(m.CPU)), append(cb, v[1].perID(m.CPU))
		ra, rb = append(ra, rate(v[0])), append(rb, rate(v[1]))
	}
	return ca, cb, ra, rb
}

func rate(s *sample) float64 {
	if s.WallNS <= 0 {
		return 0
	}
	return float64(s.IDs) / (float64(s.WallNS) / 1e9)
}

func (m *measurement) compare(w Workload, a, b int) Row {
	ca, cb, ra, rb := m.pairs(w, a, b)
	return compare(w, m.Arms[a].Name, m.Arms[b].Name, ca, cb, ra, rb, m.Alpha)
}

// median is arm a's median cost per ID on w.
func (m *measurement) median(w Workload, a int) float64 {
	c := m.cell(w)
	var v []float64
	for _, x := range m.Samples {
		if x.Cell == c && x.Arm == a {
			v = append(v, x.perID(m.CPU))
		}
	}
	return stats.Median(v)
}

// sizePlant picks the calls plant's q (extra calls per 1,024) for
// cfg.PlantPct: PlantPct percent of 1,024, or, where valgrind is found,
// the q whose instructions per call of the first subject are PlantPct
// percent above base's (CountCalls), and counts the shared plant beside
// it.
func sizePlant(ctx context.Context, cfg Config, sc *selfCheck) (int, error) {
	q0 := max(1, int(math.Round(cfg.PlantPct/100*1024)))
	if cfg.Valgrind == "" {
		return q0, nil
	}
	if _, err := exec.LookPath(cfg.Valgrind); err != nil {
		return q0, nil
	}
	cfg.Progress("ab: counting the plants' instructions under cachegrind")
	count := func(bin string, args ...string) (float64, error) {
		return Count(ctx, cfg.Valgrind, bin, cfg.Subjects[0], args...)
	}
	var line CallsLine
	var shared float64
	var g errgroup.Group
	g.Go(func() (err error) { line, err = CountCalls(count, cfg.Base, cfg.Calls); return err })
	g.Go(func() (err error) { shared, err = count(cfg.Shared); return err })
	if err := g.Wait(); err != nil {
		return 0, err
	}
	q := line.Q(cfg.PlantPct)
	c, sh := line.Change(q), shared/line.Clean-1
	sc.CallsInstr, sc.SharedInstr = &c, &sh
	return q, nil
}

// countRepeats is how many counts of each run Count takes the least of
// (instr.Runner.Tries): a count gains instructions the runtime's
// background thread (sysmon, which wakes on the wall clock, so more often
// the slower valgrind runs) executes, and never loses any. Single counts
// of one build at 100,000 calls moved by up to 2 instructions a call
// (1.5%) on this repository's VM under load, more than the shared-line
// plant adds.
const countRepeats = 3

// Count is subject's instructions per call in the runner bin (with
// args), by the instruction gate's per-call method (instr.Runner.PerCall),
// each run counted countRepeats times.
func Count(ctx context.Context, valgrind, bin, subject string, args ...string) (float64, error) {
	return instr.Runner{Valgrind: valgrind, Target: bin, Args: args, Tries: countRepeats}.PerCall(ctx, subject, countCalls, 0)
}

// CallsLine is what the calls plant adds to a subject's instructions per
// call: Clean is base's count, At0 the planted runner's at Q0 extra calls
// per 1,024, Per what each further q adds. A count is linear in q (each
// extra call is one more of the same call, on a clock that stands
// still), so two counts of the planted runner fix the line.
type CallsLine struct {
	Clean, At0, Per float64
	Q0              int
}

// CountCalls counts base, and the planted runner calls with no extra
// calls and with every call made twice (q = 1,024: the line's two ends,
// far apart beside the counts' noise), at once, by count (a subject's
// instructions per call in a runner run with args: Count).
func CountCalls(count func(bin string, args ...string) (float64, error), base, calls string) (CallsLine, error) {
	var v [3]float64
	var g errgroup.Group
	for i, args := range [][]string{nil, {"-plant-calls", "0"}, {"-plant-calls", "1024"}} {
		bin := calls
		if i == 0 {
			bin = base
		}
		g.Go(func() (err error) { v[i], err = count(bin, args...); return err })
	}
	if err := g.Wait(); err != nil {
		return CallsLine{}, err
	}
	l := CallsLine{Clean: v[0], At0: v[1], Per: (v[2] - v[1]) / 1024}
	if !(l.Per > 0) || !(l.Clean > 0) {
		return l, fmt.Errorf("%w: every call made twice counted %.1f instructions a call more", instr.ErrValgrind, v[2]-v[1])
	}
	return l, nil
}

// Q is the q whose count is pct percent above Clean (at least 1).
func (l CallsLine) Q(pct float64) int {
	return max(1, int(math.Round(float64(l.Q0)+((1+pct/100)*l.Clean-l.At0)/l.Per)))
}

// Change is the count at q over Clean, less 1.
func (l CallsLine) Change(q int) float64 { return (l.At0+float64(q-l.Q0)*l.Per)/l.Clean - 1 }
