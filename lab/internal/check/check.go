// Package check is loadgen's CI regression gate: a short fixed suite
// compared with a baseline run on cross-machine ratios, or recorded as
// the new baseline.
package check

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/inject"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/suiteflags"
	"github.com/snowlab/snowlab/lab/internal/wallgate"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// errBaselineFailures is the error for a run that was to become the
// baseline and has correctness failures.
var errBaselineFailures = errors.New("the run that was to become the baseline has correctness failures")

// Flags are the gate's flags as typed (loadgen check).
type Flags struct {
	baseline, out string
	tol           float64
	write, asJSON bool
	slow          *bool
}

// Register defines the gate's flags in fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.baseline, "baseline", filepath.FromSlash(resultdir.Baseline), "the baseline run: a result `FILE`.json, or a folder whose newest .json is used (-write-baseline: the folder to write into)")
	fs.Float64Var(&f.tol, "tolerance", compare.DefaultTolerance, "how much worse a ratio may get before the gate fails, more than 0 and less than 1 (0.25 = 25%)")
	fs.BoolVar(&f.write, "write-baseline", false, "run the suite and store it as the new baseline instead of comparing")
	fs.StringVar(&f.out, "out", "", "also write the checked run's files (JSON, Markdown, charts, HTML page) into this folder, for a CI artifact")
	fs.BoolVar(&f.asJSON, "json", false, "write the gate's finding as JSON instead of a table")
	f.slow = inject.Register(fs)
}

// Plan is the gate's flags, checked, with the baseline read (none under
// -write-baseline).
type Plan struct {
	f Flags
	// Baseline is the baseline run and BaselinePath its file.
	Baseline     *result.Run
	BaselinePath string
}

// Plan checks the flags and reads the baseline, refused before the suite
// runs where it cannot be compared with. Its error names the flag that
// is wrong, in one line.
func (f Flags) Plan() (Plan, error) {
	if err := compare.CheckTolerance(f.tol); err != nil {
		return Plan{}, fmt.Errorf("-tolerance: %w", err)
	}
	if *f.slow && f.write {
		return Plan{}, fmt.Errorf("-%s with -write-baseline would record the regression as the baseline", inject.Flag)
	}
	p := Plan{f: f}
	if f.write {
		if fi, err := os.Stat(f.baseline); err == nil && !fi.IsDir() {
			return Plan{}, fmt.Errorf("-write-baseline -baseline %s: want a folder to write the baseline into, not a file", f.baseline)
		}
		return p, nil
	}
	path, err := resultdir.BaselineFile(f.baseline)
	if err != nil {
		return Plan{}, fmt.Errorf("-baseline: %v (record one with: loadgen check -write-baseline)", err)
	}
	if p.Baseline, err = result.Read(path); err != nil {
		return Plan{}, fmt.Errorf("-baseline: %v", err)
	}
	// Refused before the suite runs: a baseline with no gated ratio
	// would fail the gate after it, having compared nothing.
	if err := compare.CheckBaseline(p.Baseline); err != nil {
		return Plan{}, fmt.Errorf("-baseline %s: %v", path, err)
	}
	p.BaselinePath = path
	return p, nil
}

// Suite is the fixed short suite the gate runs: snowlab's own generators
// (peers are not ours to gate) and the three physical-limit subjects its
// ratios are read against (the fetch-and-add limits the generators'
// costs are over, and limit/per-p, whose scaling shardedgen's is over;
// not limit/clock+cas, which only peers are read against: 1.2 s less), saturate at 1 and 2 goroutines, six short
// interleaved repeats each so the significance test has samples and
// every ratio compares repeats that ran a moment apart; slowed under
// -inject-regression, to show the gate failing.
func (p Plan) Suite() (lab.Suite, error) { return p.SuiteRepeats(6) }

// MoreRepeats is the repeats of each run the gate pools in while unsure,
// and of its confirmation run: half the first run's, so that a pass
// costs at most wallgate.DefaultMoreRounds x 3.3 s more on two cores.
const MoreRepeats = 3

// SuiteRepeats is Suite with n repeats per point.
func (p Plan) SuiteRepeats(n int) (lab.Suite, error) {
	var wrap func([]subject.Subject) []subject.Subject
	if *p.f.slow {
		wrap = inject.Slow
	}
	return GateSuite(n, wrap)
}

// GateSuite is the gate's suite with n repeats per point, its subjects
// passed through wrap first where wrap is not nil (a planted
// regression: inject.Slow, inject.Plant). loadgen gates measures the gate
// with the very suite loadgen check runs.
func GateSuite(n int, wrap func([]subject.Subject) []subject.Subject) (lab.Suite, error) {
	all := suiteflags.All()
	if wrap != nil {
		all = wrap(all)
	}
	sf := suiteflags.Flags{
		Subjects: "own," + subject.LimitClockAdd + "," + subject.LimitPerPAdd + "," + subject.LimitPerP, Workloads: "saturate", Sweep: "1,2",
		Duration: 50 * time.Millisecond, SatRepeats: n,
		// Not run; set so that the flags' range check passes.
		IDs: 1, Goroutines: 1, Repeats: 1, Rate: workload.DefaultSteadyRate, SteadyDur: workload.DefaultSteadyDuration,
		Budget: workload.DefaultCeilingBudget,
	}
	return sf.Suite(all)
}

// Keep writes the checked run's files where -write-baseline or -out
// asks for them, saying each one on w. Under -write-baseline a run with
// correctness failures is errBaselineFailures.
func (p Plan) Keep(cur *result.Run, w io.Writer) error {
	if !p.f.write && p.f.out == "" {
		return nil
	}
	to := p.f.out
	if p.f.write {
		to = p.f.baseline
	}
	paths, err := report.WriteFiles(to, cur)
	if err != nil {
		return err
	}
	for _, path := range paths {
		fmt.Fprintln(w, "wrote", path)
	}
	if p.f.write && len(cur.Failures) > 0 {
		return errBaselineFailures
	}
	return nil
}

// WritesBaseline reports whether the run is to become the baseline
// rather than be compared with one.
func (p Plan) WritesBaseline() bool { return p.f.write }

// Decide is the gate: the wall-time gate's rules (lab/internal/wallgate)
// with -tolerance as the minimum effect, pooling more runs from measure
// while unsure and confirming a failure with one more
// (wallgate.Sequential).
func (p Plan) Decide(measure wallgate.Measure) (wallgate.Outcome, error) {
	return wallgate.Sequential(p.Baseline, measure, wallgate.Options{MinEffect: p.f.tol}, wallgate.DefaultMoreRounds)
}

// WriteOutcome writes the gate's finding on w, as JSON under -json.
func (p Plan) WriteOutcome(w io.Writer, o wallgate.Outcome) error {
	if p.f.asJSON {
		return o.WriteJSON(w)
	}
	return o.Write(w)
}
