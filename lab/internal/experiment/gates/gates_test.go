package gates

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// TestFlags: bad values are refused, naming the value; the defaults are
// the design (30 pairs, 3/5/10/25%, both loads, every gate).
func TestFlags(t *testing.T) {
	parse := func(args ...string) (Options, error) {
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
	assert.Len(t, o.Paths, len(defaultPaths), "decode/layout is among the defaults")
	o, err = parse("-instr-paths", "atomicgen/monotonic/nextid", "-loads", "quiet", "-trial-loads", "quiet,hog")
	require.NoError(t, err)
	assert.Len(t, o.Paths, 2, "decode/layout is added: it sizes a step")
	assert.Equal(t, []string{LoadQuiet}, o.TrialLoads, "trial loads are those measured")
	for args, want := range map[string]string{
		"-pairs 0":                "-pairs 0",
		"-trials 31":              "-trials 31",
		"-levels 3,0":             `"0"`,
		"-levels 3,abc":           `"abc"`,
		"-loads quiet,busy":       `"busy"`,
		"-gates wall,speed":       `"speed"`,
		"-trial-loads x":          `"x"`,
		"-hog -1":                 "-hog -1",
		"-workers 0":              "-workers 0",
		"-instr-paths nosuchpath": "nosuchpath",
	} {
		_, err := parse(strings.Fields(args)...)
		require.Error(t, err, args)
		assert.Contains(t, err.Error(), want, args)
	}
}

// fakeRun is the fixture's run as loadgen check's suite would give it,
// with every atomicgen subject pct percent slower.
func fakeRun(pct float64) *result.Run {
	run := fixture.Run()
	// loadgen check's suite has no peers (the fixture's failing subject
	// is one) and no bursts.
	run.Failures, run.Burst = nil, nil
	run.Subjects = slices.DeleteFunc(run.Subjects, func(s result.SubjectInfo) bool { return s.Peer })
	run.Saturate = slices.DeleteFunc(run.Saturate, func(s result.SaturateResult) bool {
		return !slices.ContainsFunc(run.Subjects, func(i result.SubjectInfo) bool { return i.Name == s.Subject })
	})
	for i, s := range run.Saturate {
		if !strings.HasPrefix(s.Subject, "atomicgen/") || pct == 0 {
			continue
		}
		f := 1 / (1 + pct/100)
		for j := range s.Samples {
			run.Saturate[i].Samples[j] *= f
		}
		for j := range s.CPUSamples {
			run.Saturate[i].CPUSamples[j] *= f
		}
		run.Saturate[i].IDsPerSec *= f
	}
	return run
}

// fakeCount counts each path at its base count plus 4 instructions a
// planted step, unless ignoreSteps (a gate blind to the planting).
func fakeCount(ignoreSteps bool) func(context.Context, []instr.Job) (*instr.File, error) {
	return func(_ context.Context, jobs []instr.Job) (*instr.File, error) {
		f := &instr.File{Go: "go1.26.8", Valgrind: "valgrind-3.19.0", GOOS: "linux", GOARCH: "amd64"}
		for i, j := range jobs {
			per := 100 + 50*float64(i)
			if !ignoreSteps {
				per += 4 * float64(j.Steps)
			}
			f.Paths = append(f.Paths, instr.PathCount{Name: j.Path.Name, Calls: j.Path.Calls, PerCall: per, InjectSteps: j.Steps})
		}
		return f, nil
	}
}

func fakeOptions(t *testing.T, loads ...string) (Options, *int) {
	var f Flags
	fs := flag.NewFlagSet("gates", flag.ContinueOnError)
	f.Register(fs)
	require.NoError(t, fs.Parse([]string{"-pairs", "3", "-trials", "2", "-levels", "3,60", "-loads", strings.Join(loads, ",")}))
	o, err := f.Options()
	require.NoError(t, err)
	calls := 0
	o.measure = func(_ context.Context, _ int, pct float64) (*result.Run, error) {
		calls++
		return fakeRun(pct), nil
	}
	o.count = fakeCount(false)
	o.step = func(context.Context, *instr.File) (float64, error) { return 4, nil }
	o.cost = func(q int) float64 { return 40 * (1 + 0.02*float64(q)/1024) } // 2% a step
	return o, &calls
}

// TestExecute: on runs that do not change, no gate fails; a 60%
// slowdown fails every gate; the instruction gate catches 3%; pairs are
// chained (one calibration run, then 1 + pairs runs, and each planted
// trial's own); the files say it all.
func TestExecute(t *testing.T) {
	o, calls := fakeOptions(t, LoadQuiet)
	r, err := Execute(context.Background(), o, []string{"loadgen", "gates"}, "abc1234", false, nil)
	require.NoError(t, err)
	assert.Empty(t, r.Failures)
	for _, g := range allGates {
		c := r.Summary(g, LoadQuiet, 0)
		assert.Equal(t, Cell{Failed: 0, Of: 3}, Cell{Failed: c.Failed, Of: c.Of}, g)
		assert.Equal(t, 2, r.Summary(g, LoadQuiet, 60).Failed, "%s catches 60%%", g)
	}
	assert.Equal(t, 2, r.Summary(GateInstr, LoadQuiet, 3).Failed)
	m := r.Summary(GateWall, LoadQuiet, 60).Measured
	assert.InDelta(t, 60, m, 0.01, "the measured slowdown is the planted one")
	assert.Equal(t, 1+3, *calls-plantedRuns(r), "1 + pairs chained runs, and the planted trials")
	assert.Len(t, r.Limits, 1, "atomicgen/monotonic over its limit, the fixture's one such ratio")

	var table bytes.Buffer
	require.NoError(t, WriteTable(&table, r))
	assert.Contains(t, table.String(), "caught 60%")
	assert.Regexp(t, `wall\s+quiet\s+0/3\s+\d/2 \([+-]\d+\.\d%\)\s+2/2 \(\+60\.0%\)`, table.String())
	dir := t.TempDir()
	paths, err := WriteFiles(dir, r)
	require.NoError(t, err)
	assert.Len(t, paths, 3)
	got, err := os.ReadFile(filepath.Join(dir, resultdir.ExperimentStem(&r.Header)+".md"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "False alarms and detection")
	assert.Contains(t, string(got), "**Goals:** met")
}

// plantedRuns are the runs the wall gate measured for planted trials.
func plantedRuns(r *Result) int {
	n := 0
	for _, d := range r.Decisions {
		if d.Gate == GateWall && d.Pct > 0 {
			n += d.Runs
		}
	}
	return n
}

// TestGoalsMissed: a gate blind to the planting misses 3%, and a false
// alarm, are both failures named in the result.
func TestGoalsMissed(t *testing.T) {
	o, _ := fakeOptions(t, LoadQuiet)
	o.count = fakeCount(true)
	n := 0
	o.measure = func(_ context.Context, _ int, pct float64) (*result.Run, error) {
		if pct > 0 {
			return fakeRun(pct), nil
		}
		// Clean runs: the calibration, pair 1's two, then pair 2's
		// second and its confirmation run slower, as a host that slowed
		// down for a while would make them.
		n++
		if n == 4 || n == 5 {
			return fakeRun(60), nil
		}
		return fakeRun(0), nil
	}
	r, err := Execute(context.Background(), o, nil, "abc1234", false, nil)
	require.NoError(t, err)
	joined := strings.Join(r.Failures, "\n")
	assert.Contains(t, joined, "instr gate: caught 0 of 2 planted 3% slowdowns quiet")
	assert.Contains(t, joined, "wall gate: 1 false alarms in 3 same-code pairs quiet")
}

// TestHogLoad: beside the hog, the hog runs for each pair and is stopped
// after it; trials run only under the trial loads.
func TestHogLoad(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep program to stand in for the hog")
	}
	o, _ := fakeOptions(t, LoadQuiet, LoadHog)
	o.TrialLoads = []string{LoadQuiet}
	started := 0
	o.hogCmd = func(int, time.Duration) (*exec.Cmd, error) {
		started++
		return exec.Command("sleep", "60"), nil
	}
	r, err := Execute(context.Background(), o, nil, "abc1234", false, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, started, "one hog per pair beside the hog")
	assert.Equal(t, 3, r.Summary(GateWall, LoadHog, 0).Of)
	assert.Equal(t, 0, r.Summary(GateWall, LoadHog, 60).Of, "no trials beside the hog")
}

// TestCalibrate: each level's q is interpolated from the measured
// slowdowns, where the steps first cost nothing (hidden beside the next
// call) and then their price; a level the grid never reaches is the
// largest q, not reached.
func TestCalibrate(t *testing.T) {
	// 8 steps hidden, then 1% a step.
	cost := func(q int) float64 { return 40 * (1 + 0.01*max(0, float64(q)/1024-8)) }
	pts, planted := calibrate([]float64{3, 10, 500}, cost)
	require.Len(t, pts, len(calGrid()))
	assert.Equal(t, 0.0, pts[0].Slowdown)
	assert.InDelta(t, 120, pts[len(pts)-1].Slowdown, 1e-9, "128 steps: 120 paid")
	assert.Equal(t, PlantedLevel{Pct: 3, Q: 11 << 10, Reached: true}, planted[0], "8 hidden + 3")
	assert.Equal(t, PlantedLevel{Pct: 10, Q: 18 << 10, Reached: true}, planted[1])
	assert.Equal(t, PlantedLevel{Pct: 500, Q: 128 << 10}, planted[2])
}
