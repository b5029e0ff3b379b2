package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/inject"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/suiteflags"
	"github.com/snowlab/snowlab/lab/result"
)

// plan is the gate's plan for args, as loadgen check reads them.
func plan(t *testing.T, args ...string) (Plan, error) {
	t.Helper()
	fs := flag.NewFlagSet("loadgen check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f Flags
	f.Register(fs)
	require.NoError(t, fs.Parse(args))
	return f.Plan()
}

// writeRun writes the fixture run, with commit, as dir/name.
func writeRun(t *testing.T, dir, name, commit string) string {
	t.Helper()
	run := fixture.Run()
	run.Commit = commit
	path := filepath.Join(dir, name)
	require.NoError(t, resultdir.WriteJSON(path, run))
	return path
}

// passing is the fixture run without its correctness failure (the
// failing peer's order violations), which would fail any gate.
func passing() *result.Run {
	run := fixture.Run()
	run.Failures = nil
	for i := range run.Burst {
		run.Burst[i].Check.OrderViolations = 0
	}
	return run
}

// TestPlanUsage: every flag value the gate cannot run with is refused
// before the suite runs, one line naming it.
func TestPlanUsage(t *testing.T) {
	dir := t.TempDir()
	file := writeRun(t, dir, "run.json", "aaaaaaa")
	empty := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
		return path
	}
	garbage := write("garbage.json", "not json")
	experiment := write("btree.json", `{"schema":1,"experiment":"btree"}`)
	future := write("future.json", `{"schema":99}`)
	ungated := write("ungated.json", `{"schema":2,"commit":"ccccccc"}`)
	missing := filepath.Join(dir, "missing")
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"tolerance 0", []string{"-tolerance", "0", "-baseline", file}, []string{"-tolerance: ", "got 0"}},
		{"tolerance negative", []string{"-tolerance", "-0.5", "-baseline", file}, []string{"-tolerance: ", "got -0.5"}},
		{"tolerance 1", []string{"-tolerance", "1", "-baseline", file}, []string{"-tolerance: ", "got 1"}},
		{"tolerance over 1", []string{"-tolerance", "1.5", "-baseline", file}, []string{"-tolerance: ", "got 1.5"}},
		{"tolerance NaN", []string{"-tolerance", "NaN", "-baseline", file}, []string{"-tolerance: ", "got NaN"}},
		{"tolerance with -write-baseline", []string{"-tolerance", "2", "-write-baseline", "-baseline", dir}, []string{"-tolerance: ", "got 2"}},
		{"regression as the baseline", []string{"-" + inject.Flag, "-write-baseline", "-baseline", dir},
			[]string{"-" + inject.Flag + " with -write-baseline"}},
		{"baseline to write is a file", []string{"-write-baseline", "-baseline", file},
			[]string{"-write-baseline -baseline " + file + ": ", "not a file"}},
		{"baseline missing", []string{"-baseline", missing}, []string{"-baseline: ", missing, "record one with: loadgen check -write-baseline"}},
		{"baseline folder empty", []string{"-baseline", empty}, []string{"-baseline: ", "no .json run in " + empty, "record one with"}},
		{"baseline not JSON", []string{"-baseline", garbage}, []string{"-baseline: ", garbage, "not a lab result"}},
		{"baseline an experiment", []string{"-baseline", experiment}, []string{"-baseline: ", experiment, `experiment "btree"`}},
		{"baseline of another schema", []string{"-baseline", future}, []string{"-baseline: ", future, "schema version 99"}},
		{"baseline with no gated ratio", []string{"-baseline", ungated}, []string{"-baseline " + ungated + ": ", "no ratio the gate checks", "ccccccc"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plan(t, tt.args...)
			require.Error(t, err)
			assert.Equal(t, Plan{}, p)
			assert.NotContains(t, err.Error(), "\n")
			assert.False(t, errors.Is(err, errBaselineFailures))
			if strings.HasPrefix(tt.name, "tolerance") {
				assert.ErrorIs(t, err, compare.ErrTolerance)
			}
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// TestPlanBaseline: -baseline names the run itself, or a folder whose
// newest .json (by name: names start with a UTC timestamp) is read.
func TestPlanBaseline(t *testing.T) {
	dir := t.TempDir()
	older := writeRun(t, dir, "2026-03-13T09-00-00Z-lab-vm-3-aaaaaaa.json", "aaaaaaa")
	newer := writeRun(t, dir, "2026-03-14T09-00-00Z-lab-vm-3-bbbbbbb.json", "bbbbbbb")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a run"), 0o644))
	for _, tt := range []struct {
		name, spec, path, commit string
	}{
		{"folder", dir, newer, "bbbbbbb"},
		{"file", older, older, "aaaaaaa"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plan(t, "-baseline", tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.path, p.BaselinePath)
			require.NotNil(t, p.Baseline)
			assert.Equal(t, tt.commit, p.Baseline.Commit)
			assert.False(t, p.WritesBaseline())
		})
	}
}

// TestPlanWriteBaseline: -write-baseline reads no baseline: the folder
// to write into need not exist yet.
func TestPlanWriteBaseline(t *testing.T) {
	for name, dir := range map[string]string{
		"existing folder": t.TempDir(),
		"new folder":      filepath.Join(t.TempDir(), "results", "baseline"),
	} {
		t.Run(name, func(t *testing.T) {
			p, err := plan(t, "-write-baseline", "-baseline", dir)
			require.NoError(t, err)
			assert.True(t, p.WritesBaseline())
			assert.Nil(t, p.Baseline)
			assert.Empty(t, p.BaselinePath)
		})
	}
}

// TestSuite: the gate's suite is snowlab's generators and the physical
// limits their gated ratios read (not limit/clock+cas), saturate alone at 1 and 2 goroutines, six short repeats;
// -inject-regression slows atomicgen only, and says so in its note.
func TestSuite(t *testing.T) {
	base := writeRun(t, t.TempDir(), "base.json", "aaaaaaa")
	want, err := suiteflags.Select("own,limit/clock+add,limit/per-p+add,limit/per-p", suiteflags.All())
	require.NoError(t, err)
	for _, slow := range []bool{false, true} {
		args := []string{"-baseline", base}
		if slow {
			args = append(args, "-"+inject.Flag)
		}
		p, err := plan(t, args...)
		require.NoError(t, err)
		s, err := p.Suite()
		require.NoError(t, err)
		assert.True(t, s.Workloads.Saturate)
		assert.False(t, s.Workloads.Burst)
		assert.False(t, s.Workloads.Steady)
		assert.Equal(t, []int{1, 2}, s.Saturate.Goroutines)
		assert.Equal(t, 6, s.Saturate.Repeats)
		assert.Equal(t, 50*time.Millisecond, s.Saturate.Duration)
		require.Len(t, s.Subjects, len(want))
		for i, sub := range s.Subjects {
			assert.Equal(t, want[i].Name, sub.Name)
			injected := strings.Contains(sub.Note, inject.Note)
			assert.Equal(t, slow && strings.HasPrefix(sub.Name, "atomicgen/"), injected, "%s (slow %v): %q", sub.Name, slow, sub.Note)
		}
	}
}

// TestKeep: the checked run's files are written only under -out or
// -write-baseline, each one said; a baseline with correctness failures
// is errBaselineFailures, after its files are written for a look.
func TestKeep(t *testing.T) {
	base := writeRun(t, t.TempDir(), "base.json", "aaaaaaa")
	for _, tt := range []struct {
		name    string
		args    func(dir string) []string
		run     *result.Run
		written bool
		err     error
	}{
		{"neither", func(string) []string { return []string{"-baseline", base} }, fixture.Run(), false, nil},
		{"-out", func(dir string) []string { return []string{"-baseline", base, "-out", dir} }, fixture.Run(), true, nil},
		{"-write-baseline", func(dir string) []string { return []string{"-write-baseline", "-baseline", dir} }, passing(), true, nil},
		{"-write-baseline of a failing run", func(dir string) []string { return []string{"-write-baseline", "-baseline", dir} },
			fixture.Run(), true, errBaselineFailures},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "to")
			p, err := plan(t, tt.args(dir)...)
			require.NoError(t, err)
			var said bytes.Buffer
			err = p.Keep(tt.run, &said)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
			} else {
				assert.NoError(t, err)
			}
			if !tt.written {
				assert.Empty(t, said.String())
				assert.NoDirExists(t, dir)
				return
			}
			json := filepath.Join(dir, resultdir.Stem(tt.run)+".json")
			assert.Contains(t, said.String(), "wrote "+json+"\n")
			for _, line := range strings.Split(strings.TrimSuffix(said.String(), "\n"), "\n") {
				path, ok := strings.CutPrefix(line, "wrote ")
				require.True(t, ok, line)
				assert.FileExists(t, path)
			}
			back, err := result.Read(json)
			require.NoError(t, err)
			assert.Equal(t, tt.run.Failures, back.Failures)
		})
	}
}

// TestGate: the run is gated against the baseline by the wall gate's
// rules at -tolerance as the minimum effect, and the finding written as a
// table or, under -json, as JSON; a correctness failure fails the gate.
func TestGate(t *testing.T) {
	base := writeRun(t, t.TempDir(), "base.json", "aaaaaaa")
	for _, tt := range []struct {
		name string
		run  *result.Run
		ok   bool
	}{
		{"same figures", passing(), true},
		{"correctness failure", fixture.Run(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plan(t, "-baseline", base, "-tolerance", "0.3")
			require.NoError(t, err)
			out, err := p.Decide(func(bool) (*result.Run, error) { return tt.run, nil })
			require.NoError(t, err)
			assert.Equal(t, 0.3, out.MinEffect)
			assert.Equal(t, "aaaaaaa", out.BaseCommit)
			assert.Equal(t, tt.ok, out.Err() == nil, "%v", out.Err())

			var table bytes.Buffer
			require.NoError(t, p.WriteOutcome(&table, out))
			assert.False(t, json.Valid(table.Bytes()), "a table, not JSON")
			assert.Contains(t, table.String(), "aaaaaaa")

			p, err = plan(t, "-baseline", base, "-tolerance", "0.3", "-json")
			require.NoError(t, err)
			var js bytes.Buffer
			require.NoError(t, p.WriteOutcome(&js, out))
			assert.True(t, json.Valid(js.Bytes()), js.String())
			assert.Contains(t, js.String(), fmt.Sprintf(`"pass": %v`, tt.ok))
		})
	}
}

// TestFlagDefaults: without flags the gate compares with the committed
// baseline folder at compare's default tolerance.
func TestFlagDefaults(t *testing.T) {
	fs := flag.NewFlagSet("loadgen check", flag.ContinueOnError)
	var f Flags
	f.Register(fs)
	assert.Equal(t, filepath.FromSlash("results/baseline"), fs.Lookup("baseline").DefValue)
	assert.Equal(t, f.tol, compare.DefaultTolerance)
	assert.NotNil(t, fs.Lookup(inject.Flag))
}
