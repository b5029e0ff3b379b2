package gates

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/ab"
	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// TestFlags: bad values are refused, naming the value; the defaults are
// the design (30 pairs, 3/5/10/25%, both loads, both gates,
// loadgen ab's own rounds).
func TestFlags(t *testing.T) {
	parse := func(args ...string) (options, error) {
		var f Flags
		fs := flag.NewFlagSet("gates", flag.ContinueOnError)
		f.Register(fs)
		require.NoError(t, fs.Parse(args))
		return f.Options()
	}
	o, err := parse()
	require.NoError(t, err)
	assert.Equal(t, 30, o.Pairs)
	assert.Equal(t, []float64{3, 5, 10, 25}, o.Levels)
	assert.Equal(t, allLoads, o.Loads)
	assert.Equal(t, allGates, o.Gates)
	assert.Equal(t, ab.DefaultRounds, o.AB.Rounds)
	assert.Len(t, o.Paths, len(defaultPaths), "decode/layout is among the defaults")
	o, err = parse("-instr-paths", "atomicgen/monotonic/nextid", "-loads", "quiet", "-trial-loads", "quiet,hog")
	require.NoError(t, err)
	assert.Len(t, o.Paths, 2, "decode/layout is added: it sizes a step")
	assert.Equal(t, []string{loadQuiet}, o.TrialLoads, "trial loads are those measured")
	for args, want := range map[string]string{
		"-pairs 0":                "-pairs 0",
		"-trials 31":              "-trials 31",
		"-levels 3,0":             `"0"`,
		"-levels 3,abc":           `"abc"`,
		"-loads quiet,busy":       `"busy"`,
		"-gates wall":             `"wall"`,
		"-trial-loads x":          `"x"`,
		"-hog -1":                 "-hog -1",
		"-rounds 1":               "-rounds 1",
		"-slice 0s":               "-slice 0s",
		"-instr-paths nosuchpath": "nosuchpath",
	} {
		_, err := parse(strings.Fields(args)...)
		require.Error(t, err, args)
		assert.Contains(t, err.Error(), want, args)
	}
}

// fakeCount counts each path of instrpath at its base count plus 4
// instructions a planted step, unless ignoreSteps (a gate blind to the
// planting), and a runner's subjects as f does.
func fakeCount(ignoreSteps bool, f *fakeAB) func(context.Context, instr.Runner, []instr.Job) (*instr.File, error) {
	return func(ctx context.Context, r instr.Runner, jobs []instr.Job) (*instr.File, error) {
		file := &instr.File{Go: "go1.26.8", Valgrind: "valgrind-3.19.0", GOOS: "linux", GOARCH: "amd64"}
		for i, j := range jobs {
			per := 100 + 50*float64(i)
			if r.Target != "bin/instrpath" {
				per, _ = f.count(ctx, r.Target, j.Path.Name, r.Args...)
			} else if !ignoreSteps {
				per += 4 * float64(j.Steps)
			}
			file.Paths = append(file.Paths, instr.PathCount{Name: j.Path.Name, Calls: j.Path.Calls, PerCall: per, InjectSteps: j.Steps})
		}
		return file, nil
	}
}

// fakeAB stands in for the runners and loadgen ab: base counts 130
// instructions a call, each extra call per 1,024 adds 125/1024 (after one
// fewer in the planted build's own loop), the shared line sharedInstr;
// an A/B run reads a planted head's change as its instruction change at
// G=1 and contention at G=2, and decides as ab does by its minimum
// effects; the shared line reads sharedG1 at G=1. sameCode scripts the
// same-code runs' change at G=1, by run.
type fakeAB struct {
	contention, sharedInstr, sharedG1 float64
	sameCode                          map[int]float64
	runs, sameRuns                    int
}

func (f *fakeAB) count(_ context.Context, bin, subject string, args ...string) (float64, error) {
	switch bin {
	case "calls":
		q, _ := strconv.Atoi(args[1])
		return 129 + 125*float64(q)/1024, nil
	case "shared":
		return 130 * (1 + f.sharedInstr), nil
	}
	return 130, nil
}

func (f *fakeAB) run(_ context.Context, cfg ab.Config) (*ab.Result, error) {
	f.runs++
	res := &ab.Result{Config: ab.Config{Subjects: []string{"atomicgen/monotonic", "mutexgen/monotonic"}}, GOMAXPROCS: 2}
	c1, cg := 0.0, 0.0
	switch cfg.Head {
	case "calls":
		q, _ := strconv.Atoi(cfg.HeadArgs[1])
		c1, cg = (129+125*float64(q)/1024)/130-1, (129+125*float64(q)/1024)/130-1
	case "shared":
		c1, cg = f.sharedG1, f.contention
	default:
		f.sameRuns++
		c1 = f.sameCode[f.sameRuns]
	}
	o, _ := ab.Options{}.WithDefaults()
	for _, s := range res.Subjects {
		for _, g := range []int{1, 2, 4} {
			r := ab.Row{Workload: ab.Workload{Subject: s, G: g}, Change: ab.Number(c1), Decision: ab.Same}
			me := o.MinEffect
			if g > 1 {
				r.Change, me = ab.Number(cg), o.MinEffectContended
			}
			if float64(r.Change) >= me {
				r.Decision, r.Worse = ab.Different, true
			}
			res.Rows = append(res.Rows, r)
		}
	}
	return res, nil
}

func fakeOptions(t *testing.T, f *fakeAB, loads ...string) options {
	var fl Flags
	fs := flag.NewFlagSet("gates", flag.ContinueOnError)
	fl.Register(fs)
	require.NoError(t, fs.Parse([]string{"-pairs", "3", "-trials", "2", "-levels", "5,60", "-loads", strings.Join(loads, ",")}))
	o, err := fl.Options()
	require.NoError(t, err)
	o.count = fakeCount(false, f)
	o.step = func(context.Context, *instr.File) (float64, error) { return 4, nil }
	o.build = func(context.Context, string) (*ab.Build, error) {
		return &ab.Build{Base: "base", Head: "base", Calls: "calls", Shared: "shared"}, nil
	}
	o.abRun, o.abCount = f.run, f.count
	return o
}

// TestExecute: on the same code neither gate fails; both catch the
// planted 5% and 60%, each level sized from instruction counts to what
// was asked for; the A/B gate catches the contention plant and the
// instruction gate passes it; the files say it all.
func TestExecute(t *testing.T) {
	f := &fakeAB{contention: 0.4, sharedInstr: 0.008, sharedG1: 0.13}
	o := fakeOptions(t, f, loadQuiet)
	r, err := Execute(context.Background(), o, []string{"loadgen", "gates"}, "abc1234", false, nil)
	require.NoError(t, err)
	assert.Empty(t, r.Failures)
	for _, g := range allGates {
		c := r.Summary(g, loadQuiet, "", 0)
		assert.Equal(t, Cell{Failed: 0, Of: 3}, Cell{Failed: c.Failed, Of: c.Of}, g)
		assert.Equal(t, 2, r.Summary(g, loadQuiet, plantSlow, 5).Failed, "%s catches 5%%", g)
		assert.Equal(t, 2, r.Summary(g, loadQuiet, plantSlow, 60).Failed, "%s catches 60%%", g)
	}
	require.Len(t, r.Planted, 2)
	for _, p := range r.Planted {
		assert.InDelta(t, p.Pct, p.Instr, 0.1, "%g%% planted as %d/1024 extra calls", p.Pct, p.Q)
	}
	assert.InDelta(t, 60, r.Summary(gateAB, loadQuiet, plantSlow, 60).Measured, 0.1, "the measured slowdown is the planted one")
	assert.Equal(t, 2, r.Summary(gateAB, loadQuiet, plantContention, 0).Failed, "ab catches the contention plant")
	instrShared := r.Summary(gateInstr, loadQuiet, plantContention, 0)
	assert.Equal(t, Cell{Failed: 0, Of: 2}, Cell{Failed: instrShared.Failed, Of: instrShared.Of}, "the instruction gate passes it")
	assert.InDelta(t, 0.8, instrShared.Measured, 1e-9)
	assert.Equal(t, 3+2*3, f.runs, "a same-code run a pair; two levels and the contention plant a trial")

	var table bytes.Buffer
	require.NoError(t, WriteTable(&table, r))
	assert.Regexp(t, `ab\s+quiet\s+0/3\s+2/2 \(\+5\.0%\)\s+2/2 \(\+60\.0%\)\s+2/2 \(\+40\.0%\)`, table.String())
	assert.Regexp(t, `instr\s+quiet\s+0/3\s+2/2 \(\+\d+\.\d%\)\s+2/2 \(\+\d+\.\d%\)\s+0/2 \(\+0\.8%\)`, table.String())
	assert.Contains(t, table.String(), "planted at G=1 (counted under cachegrind): 5%: ")
	assert.Contains(t, table.String(), "ab on the contention plant quiet: atomicgen/monotonic read +13.0% at G=1")
	dir := t.TempDir()
	paths, err := WriteFiles(dir, r)
	require.NoError(t, err)
	assert.Len(t, paths, 3)
	got, err := os.ReadFile(filepath.Join(dir, resultdir.ExperimentStem(&r.Header)+".md"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "False alarms and detection")
	assert.Contains(t, string(got), "**Goals:** met")
}

// TestGoalsMissed: a false alarm, an A/B gate blind to contention (the
// contention plant caught at G=1 alone) and an instruction gate that
// fails the contention plant are goals missed, named in the result; so
// is an instruction gate blind to its plants.
func TestGoalsMissed(t *testing.T) {
	f := &fakeAB{contention: 0.02, sharedInstr: 0.03, sharedG1: 0.13, sameCode: map[int]float64{2: 0.05}}
	o := fakeOptions(t, f, loadQuiet)
	o.count = fakeCount(true, f)
	r, err := Execute(context.Background(), o, nil, "abc1234", false, nil)
	require.NoError(t, err)
	joined := strings.Join(r.Failures, "\n")
	for _, want := range []string{
		"ab gate: 1 false alarms in 3 same-code pairs quiet",
		"ab gate: caught 0 of 2 contention plants quiet",
		"instr gate: failed 2 of 2 contention plants quiet",
		"instr gate: caught 0 of 2 planted 5% slowdowns quiet",
	} {
		assert.Contains(t, joined, want)
	}
	assert.NotContains(t, joined, "ab gate: caught 0 of 2 planted", "ab caught every planted slowdown")
}

// TestHogLoad: beside the hog, the hog runs for each pair and is stopped
// after it; trials run only under the trial loads.
func TestHogLoad(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep program to stand in for the hog")
	}
	o := fakeOptions(t, &fakeAB{contention: 0.4}, loadQuiet, loadHog)
	o.TrialLoads = []string{loadQuiet}
	started := 0
	o.hogCmd = func(int, time.Duration) (*exec.Cmd, error) {
		started++
		return exec.Command("sleep", "60"), nil
	}
	r, err := Execute(context.Background(), o, nil, "abc1234", false, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, started, "one hog per pair beside the hog")
	assert.Equal(t, 3, r.Summary(gateAB, loadHog, "", 0).Of)
	assert.Equal(t, 0, r.Summary(gateAB, loadHog, plantSlow, 60).Of, "no trials beside the hog")
}

// TestGoalsClaimed: a run without trials claims no detection goal it did
// not judge; one with them claims them all.
func TestGoalsClaimed(t *testing.T) {
	o := fakeOptions(t, &fakeAB{contention: 0.4}, loadQuiet)
	o.Trials = 0
	r, err := Execute(context.Background(), o, nil, "abc1234", false, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"no false alarm"}, metGoals(r))

	r, err = Execute(context.Background(), fakeOptions(t, &fakeAB{contention: 0.4}, loadQuiet), nil, "abc1234", false, nil)
	require.NoError(t, err)
	assert.Len(t, metGoals(r), 5)
}
