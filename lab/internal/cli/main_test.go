package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/suiteflags"
	"github.com/snowlab/snowlab/lab/internal/vcs"
	"github.com/snowlab/snowlab/lab/result"
)

// tiny keeps a suite to a fraction of a second.
var tiny = []string{"-q", "-n", "2000", "-g", "4", "-repeats", "1", "-sweep", "1,2",
	"-duration", "10ms", "-sat-repeats", "1", "-steady-duration", "20ms", "-rate", "50000"}

func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunWritesResults(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs(append([]string{"run", "-subjects", "atomicgen/strict,mutexgen", "-out", dir}, tiny...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "atomicgen/strict")
	assert.Contains(t, out, "mutexgen/monotonic")
	jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	mds, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	svgs, _ := filepath.Glob(filepath.Join(dir, "*", "*.svg"))
	htmls, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	assert.Len(t, jsons, 1)
	assert.Len(t, mds, 1)
	assert.NotEmpty(t, svgs)
	assert.ElementsMatch(t, []string{strings.TrimSuffix(jsons[0], ".json") + ".html", filepath.Join(dir, "index.html")}, htmls,
		"the run's page and the history page")
	assert.Contains(t, out, "index.html (1 runs)")

	// export it for benchstat and for github-action-benchmark.
	code, out, errs = runArgs("export", jsons[0])
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "BenchmarkSaturate/subject=atomicgen:strict/G=1-")
	assert.Contains(t, out, " IDs/s\n")
	code, out, errs = runArgs("export", "-format", "benchmark-action", jsons[0])
	require.Equal(t, exitOK, code, errs)
	var entries []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &entries), out)
	assert.NotEmpty(t, entries)
	code, out, errs = runArgs("export", "-format", "benchmark-action-costs", jsons[0])
	require.Equal(t, exitOK, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &entries), out)

	// compare a run with itself: every row present, nothing "worse".
	code, out, errs = runArgs("compare", jsons[0], jsons[0])
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "atomicgen/strict")
	assert.NotContains(t, out, "worse")
}

// TestCompareExitAndJSON: compare is a report, never a gate (it has no
// flag that fails a run, and -fail-on-regression is gone: identical code
// failed it in 14 of 30 pairs), and -json is one JSON object on stdout.
func TestCompareExitAndJSON(t *testing.T) {
	dir := t.TempDir()
	sweep := func(v float64) *result.Run {
		r := &result.Run{Schema: result.SchemaVersion, Commit: "abc1234"}
		for _, g := range []int{1, 2} {
			r.Saturate = append(r.Saturate, result.SaturateResult{Subject: "atomicgen/monotonic", Goroutines: g,
				Samples: []float64{v, v * 1.01, v * 0.99, v * 1.02, v * 0.98, v * 1.005}, IDsPerSec: v})
		}
		return r
	}
	old, cur := sweep(20e6), sweep(10e6)
	oldPath, curPath := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	require.NoError(t, resultdir.WriteJSON(oldPath, old))
	require.NoError(t, resultdir.WriteJSON(curPath, cur))

	code, out, _ := runArgs("compare", oldPath, curPath)
	assert.Equal(t, exitOK, code, "a comparison is a report")
	assert.Contains(t, out, "worse")
	code, _, errs := runArgs("compare", "-fail-on-regression", oldPath, curPath)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "flag provided but not defined: -fail-on-regression")
	_, _, errs = runArgs("compare", "-h")
	assert.NotContains(t, errs, "fail", "compare -h offers no failing flag")

	code, out, errs = runArgs("compare", "-json", oldPath, curPath)
	require.Equal(t, exitOK, code, errs)
	var got struct {
		Regressions int               `json:"regressions"`
		Rows        []json.RawMessage `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, 2, got.Regressions, "both saturate rows halved")
	assert.NotEmpty(t, got.Rows)
}

// TestCompareNothingInCommon: an experiment's file, or two runs of
// different workloads, share no metric: one line saying what each file
// is, exit 2; never a pass.
func TestCompareNothingInCommon(t *testing.T) {
	dir := t.TempDir()
	suite := &result.Run{Schema: result.SchemaVersion, Commit: "abc1234",
		Subjects: []result.SubjectInfo{{Name: "atomicgen/monotonic"}},
		Saturate: []result.SaturateResult{{Subject: "atomicgen/monotonic", Goroutines: 1, Samples: []float64{1, 2, 3, 4, 5}, IDsPerSec: 3}}}
	steady := &result.Run{Schema: result.SchemaVersion, Commit: "def5678",
		Steady: []result.SteadyResult{{Subject: "atomicgen/monotonic", TargetRate: 1e6, Latency: result.Latency{Count: 10, P99: 100}}}}
	suitePath, steadyPath := filepath.Join(dir, "suite.json"), filepath.Join(dir, "steady.json")
	btreePath := filepath.Join(dir, "x-btree.json")
	require.NoError(t, resultdir.WriteJSON(suitePath, suite))
	require.NoError(t, resultdir.WriteJSON(steadyPath, steady))
	require.NoError(t, os.WriteFile(btreePath, []byte(`{"schema":1,"experiment":"btree","commit":"abc1234"}`), 0o644))

	for _, tc := range []struct {
		name string
		args []string
		code int
		says []string
	}{
		{"experiment vs suite", []string{btreePath, suitePath}, exitUsage,
			[]string{`x-btree.json: the result of an experiment, not of a suite run (experiment "btree")`, "suite.json: a suite run (commit abc1234, 1 subjects)"}},
		{"suite vs experiment, JSON", []string{"-json", suitePath, btreePath}, exitUsage, []string{`(experiment "btree")`}},
		{"other workloads", []string{suitePath, steadyPath}, exitUsage,
			[]string{"the runs share no metric: old (commit abc1234) measured saturate IDs/s ×1; new (commit def5678) measured steady p99 latency ×1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runArgs(append([]string{"compare"}, tc.args...)...)
			assert.Equal(t, tc.code, code)
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
			for _, w := range tc.says {
				assert.Contains(t, errs, w)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"run", "-subjects", "nosuchlib"},
		{"run", "-workloads", "sprint"},
		{"run", "-sweep", "1,x"},
		{"run", "-n", "0"},
		{"run", "extra"},
		{"compare", "only-one.json"},
		{"compare", "missing-a.json", "missing-b.json"},
		{"run", "-cpus", "x"},
		{"run", "-cpus", "3-1"},
		{"run", "-cpus", "-1"},
		{"run", "-cpus", "100000"},
		{"export"},
		{"export", "-format", "csv", "x.json"},
		{"export", "missing.json"},
		// Out of range: one line naming the value, never a panic.
		{"run", "-n", "9223372036854775807"},
		{"run", "-n", "10000001"},
		{"run", "-g", "0"},
		{"run", "-g", "1000000"},
		{"run", "-repeats", "1000000000"},
		{"run", "-sat-repeats", "0"},
		{"run", "-sweep", "1,100000000"},
		{"run", "-pause", "-1s"},
		{"run", "-rate", "NaN"},
		{"run", "-rate", "+Inf"},
		{"run", "-rate", "-5"},
		{"run", "-rate", "1e9", "-steady-duration", "1m"},
		{"run", "-steady-duration", "0"},
		{"run", "-steady-duration", "-1s"},
		{"run", "-duration", "-1s"},
		{"run", "-duration", "0"},
		{"run", "-duration", "24h"},
		{"run", "-ceiling-budget", "0"},
		{"run", "-ceiling-budget", "-1s"},
		{"run", "-ceiling-budget", "11m"},
		{"run", "-n", "abc"},
		{"run", "-gomaxprocs", "-1"},
		{"run", "-gomaxprocs", "100000"},
		{"check"},
		{"gate", "a.json", "b.json"},
		{"ab", "HEAD"},
		{"ab", "-rounds", "1", "HEAD", "HEAD"},
		{"ab", "-g", "0", "HEAD", "HEAD"},
		{"ab", "-min-effect", "2", "HEAD", "HEAD"},
		{"ab", "HEAD", "no-such-revision-of-this-repository"},
	} {
		code, out, errs := runArgs(args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.NotEmpty(t, strings.TrimSpace(errs), "%v says why", args)
		assert.NotContains(t, errs, "goroutine 1 [", "%v: no stack trace", args)
		assert.Empty(t, out, "%v: nothing on stdout", args)
		if len(args) == 3 && strings.ContainsAny(args[2], "0123456789NI") {
			// A value out of range: one line naming the flag.
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(errs), "\n")+1, "%v: one line: %s", args, errs)
			assert.Contains(t, errs, args[1], "%v: the error names the flag", args)
		}
	}
}

// TestHelp: -h lists the subcommands (or a subcommand's flags) and exits 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		code, out, _ := runArgs(args...)
		assert.Equal(t, exitOK, code, "%v", args)
		for _, sub := range []string{"run", "compare", "ab", "instr", "faults", "list"} {
			assert.Contains(t, out, "loadgen "+sub, "%v", args)
		}
	}
	for _, args := range [][]string{{"run", "-h"}, {"ab", "-h"}, {"faults", "-h"}, {"compare", "-h"}} {
		code, _, errs := runArgs(args...)
		assert.Equal(t, exitOK, code, "%v", args)
		assert.Contains(t, errs, "Usage of loadgen "+args[0], "%v", args)
	}
	_, _, errs := runArgs("ab", "-h")
	assert.Contains(t, errs, "-min-effect")
	_, out, _ := runArgs("help")
	assert.NotContains(t, out, "loadgen check", "removed")
	assert.NotContains(t, out, "loadgen gate ", "removed")
	for _, retired := range []string{"btree", "alternatives", "peerfaults"} {
		assert.NotContains(t, out, "loadgen "+retired+" ", "retired")
	}
}

// TestRetired: a retired experiment is one line naming the commit whose
// lab runs it, with status 2, so that its re-run path is never lost.
func TestRetired(t *testing.T) {
	for _, cmd := range []string{"btree", "alternatives", "peerfaults"} {
		code, out, errs := runArgs(cmd, "-rows", "10")
		assert.Equal(t, exitUsage, code, cmd)
		assert.Empty(t, out, cmd)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "%s: one line: %s", cmd, errs)
		assert.Contains(t, errs, "go run "+retiredAt.path+"@"+retiredAt.commit+" "+cmd, cmd)
	}
	// One commit for the re-run path: the lab's README and FINDINGS name
	// the one loadgen prints (absent from a module cache's copy).
	for _, doc := range []string{"../../README.md", "../../../results/FINDINGS.md"} {
		text, err := os.ReadFile(filepath.FromSlash(doc))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		require.NoError(t, err)
		for _, c := range regexp.MustCompile(`loadgen@([0-9a-f]+)`).FindAllStringSubmatch(string(text), -1) {
			assert.Equal(t, retiredAt.commit, c[1], "%s names another commit for the retired experiments", doc)
		}
		assert.Contains(t, string(text), retiredAt.commit, doc)
	}
}

// TestUnknownCommand: a subcommand loadgen does not have is one line
// naming it on stderr, with status 2 and nothing on stdout.
func TestUnknownCommand(t *testing.T) {
	code, out, errs := runArgs("nosuch")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "loadgen: unknown command \"nosuch\" (run 'loadgen help' for the commands)\n", errs)
	assert.Empty(t, out)
}

// TestListWriteError: list fails when its output cannot be written.
func TestListWriteError(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	var errb bytes.Buffer
	assert.Equal(t, exitFailure, Main([]string{"list"}, full, &errb))
	assert.Contains(t, errb.String(), "no space left")
}

// TestSteadyOnlyTable: a run of the steady workload alone prints its rows.
func TestSteadyOnlyTable(t *testing.T) {
	code, out, errs := runArgs(append([]string{"run", "-no-write", "-workloads", "steady", "-subjects", "atomicgen/strict"}, tiny...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "== Steady ==")
	assert.Regexp(t, `(?m)^atomicgen/strict +50\.0k/s`, out)
}

// TestRunRecordsCleanCommit: the file is named for the commit alone; a
// dirty tree is recorded inside it.
func TestRunRecordsCleanCommit(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runArgs(append([]string{"run", "-subjects", "atomicgen/strict", "-workloads", "steady", "-out", dir}, tiny...)...)
	require.Equal(t, exitOK, code, errs)
	jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	require.Len(t, jsons, 1)
	assert.NotContains(t, filepath.Base(jsons[0]), "dirty")
	data, err := os.ReadFile(jsons[0])
	require.NoError(t, err)
	assert.NotContains(t, string(data), "+dirty")
	if _, dirty := vcs.Commit(); dirty {
		assert.Contains(t, string(data), `"dirty": true`)
	}
}

func TestList(t *testing.T) {
	code, out, _ := runArgs("list")
	require.Equal(t, exitOK, code)
	for _, name := range []string{"mutexgen/strict", "atomicgen/monotonic", "shardedgen/split-sequence/strict", "bwmarrin/snowflake", "google/uuid-v7",
		"limit/clock+cas", "limit/per-p", "limit/clock+add", "limit/per-p+add"} {
		assert.Contains(t, out, name)
	}
}

// TestMain parses the test binary's flags before it sets os.Args to the
// bare command the tests run as: set first, it left m.Run no -run, -v or
// -count to parse, and every invocation ran every test.
func TestMain(m *testing.M) {
	flag.Parse()
	os.Args = []string{"loadgen"}
	os.Exit(m.Run())
}

// TestRunUnderLease: -lease mints snowlab's generators under a lock-folder
// lease (GOMAXPROCS node ids, for the node-per-shard subjects) and every
// check still passes.
func TestRunUnderLease(t *testing.T) {
	args := append([]string{"run", "-no-write", "-lease", "dir:" + t.TempDir(),
		"-subjects", "atomicgen,shardedgen/node-per-shard/strict"}, tiny...)
	code, out, errs := runArgs(args...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "shardedgen/node-per-shard/strict")
}

// TestRunLeaseSpecs: a lease spec that can never work is a usage error (exit
// 2) before anything runs, one line naming it.
func TestRunLeaseSpecs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tt := range []struct {
		name, spec, want string
	}{
		{"no scheme", "bogus", "want scheme:location"},
		{"empty", "", "want scheme:location"},
		{"unknown scheme", "bogus:x/y", `unknown scheme "bogus"`},
		{"dir under a regular file", "dir:" + filepath.Join(file, "ids"), "not a directory"},
		{"etcd without a port", "etcd:127.0.0.1/x", "is not HOST:PORT"},
		{"pg with an empty DSN", "pg:", "want scheme:location"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runArgs("run", "-no-write", "-lease", tt.spec)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
			assert.True(t, strings.HasPrefix(errs, "loadgen run: -lease: "), errs)
			assert.Contains(t, errs, fmt.Sprintf("%q", tt.spec))
			assert.Contains(t, errs, tt.want)
		})
	}
}

// The -etcd-* flags with a lease on another store, or none, would do
// nothing: refused in one line; and a pg: DSN's password reaches no
// output.
func TestRunLeaseFlags(t *testing.T) {
	code, out, errs := runArgs("run", "-no-write", "-lease", "dir:"+t.TempDir(), "-etcd-user", "bob")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, "the -etcd-* flags are for -lease etcd:")

	code, out, errs = runArgs("run", "-no-write", "-lease", "pg:postgres://app:Sup3r-s3cret@127.0.0.1:70000/app")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	assert.NotContains(t, errs, "Sup3r-s3cret")
}

// TestRunLimits: -subjects limit selects the four physical limits (and
// "own" does not), -gomaxprocs sets the run's GOMAXPROCS and the result
// records it, and the table reads generators against their limit.
func TestRunLimits(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"run", "-subjects", "limit,atomicgen/monotonic,shardedgen/node-per-shard/monotonic",
		"-workloads", "saturate", "-gomaxprocs", "1", "-out", dir}, tiny...)
	before := runtime.GOMAXPROCS(0)
	code, out, errs := runArgs(args...)
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, before, runtime.GOMAXPROCS(0), "restored after the run")
	assert.Contains(t, out, "GOMAXPROCS 1")
	assert.Regexp(t, `(?m)^atomicgen/monotonic +limit/clock\+add +[0-9.]+×`, out)
	assert.Regexp(t, `(?m)^shardedgen/node-per-shard/monotonic +limit/per-p\+add +[0-9.]+×`, out)
	jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	require.Len(t, jsons, 1)
	res, err := result.Read(jsons[0])
	require.NoError(t, err)
	assert.Equal(t, 1, res.Host.GOMAXPROCS)
	var names []string
	for _, s := range res.Subjects {
		names = append(names, s.Name)
	}
	assert.ElementsMatch(t, []string{"atomicgen/monotonic", "shardedgen/node-per-shard/monotonic", "limit/clock+cas", "limit/per-p", "limit/clock+add", "limit/per-p+add"}, names)

	subs, err := suiteflags.Select("own", suiteflags.All())
	require.NoError(t, err)
	for _, s := range subs {
		assert.False(t, s.Physical, "own holds no limit: %s", s.Name)
	}
}

func TestParseCPUs(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []int
	}{
		{"0", []int{0}},
		{"0,1", []int{0, 1}},
		{"0-3", []int{0, 1, 2, 3}},
		{" 2, 0-1 ,1", []int{2, 0, 1}},
	} {
		got, err := host.ParseCPUList(tc.spec)
		require.NoError(t, err, tc.spec)
		assert.Equal(t, tc.want, got, tc.spec)
	}
	for _, bad := range []string{"", "x", "1-", "3-1", "-1", "0,,1", "0-99999999"} {
		_, err := host.ParseCPUList(bad)
		assert.Error(t, err, bad)
	}
}

// TestRunRecordsCPUsAndGOMAXPROCS: -cpus and -gomaxprocs are recorded in
// the result's host (on Linux, which alone sets an affinity).
func TestRunRecordsCPUsAndGOMAXPROCS(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"run", "-subjects", "atomicgen/strict", "-workloads", "saturate", "-gomaxprocs", "1", "-cpus", "0", "-out", dir}, tiny...)
	code, _, errs := runArgs(args...)
	if runtime.GOOS != "linux" {
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errs, "Linux only")
		return
	}
	require.Equal(t, exitOK, code, errs)
	jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	require.Len(t, jsons, 1)
	res, err := result.Read(jsons[0])
	require.NoError(t, err)
	assert.Equal(t, 1, res.Host.GOMAXPROCS)
	assert.Equal(t, []int{0}, res.Host.Affinity)
	assert.Contains(t, res.Command, "-cpus")
	assert.Len(t, host.Affinity(), runtime.NumCPU(), "the affinity is put back")
}
