package instr

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/runner"
)

// Every path runs through the runner's count mode and takes the same
// number of clock readings each run: a few thousand calls of each, on
// its synthetic clock, a planted step after each, without an error (a
// Strict path that exhausted its sequence would wait, then fail); -list
// names them all.
func TestPathsRun(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Paths() {
		if seen[p.Name] || p.Calls < 1000 {
			t.Errorf("path %s: duplicate, or %d calls", p.Name, p.Calls)
		}
		seen[p.Name] = true
		var errb bytes.Buffer
		if code := runner.Run([]string{"-path", p.Name, "-n", "5000", "-inject-steps", "1"}, nil, io.Discard, &errb, Subjects()); code != 0 {
			t.Errorf("%s: exit %d: %s", p.Name, code, errb.String())
		}
	}
	if len(seen) != 20 {
		t.Errorf("%d paths, want 20 (4 generators x 2 policies x 2 calls, 4 codec paths)", len(seen))
	}
	var out bytes.Buffer
	if code := runner.Run([]string{"-list"}, nil, &out, &out, Subjects()); code != 0 || !strings.Contains(out.String(), "atomicgen/monotonic/nextid\n") {
		t.Errorf("-list: exit %d, %q", code, out.String())
	}
}

func file(per ...float64) *File {
	f := &File{Go: "go1.26.8", Valgrind: "valgrind-3.19.0", GOOS: "linux", GOARCH: "amd64"}
	for i, v := range per {
		f.Paths = append(f.Paths, PathCount{Name: string(rune('a' + i)), Calls: 1000, PerCall: v})
	}
	return f
}

func TestCompare(t *testing.T) {
	rows, err := Compare(file(100, 200, 300), file(101, 206, 290), 0.015)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"same", "worse", "better"}
	for i, r := range rows {
		if r.Verdict != want[i] {
			t.Errorf("%s: %+.2f%% is %s, want %s", r.Name, 100*r.Change, r.Verdict, want[i])
		}
	}
	if Worse(rows) != 1 {
		t.Errorf("Worse = %d, want 1", Worse(rows))
	}
	other := file(100, 200, 300)
	other.Valgrind = "valgrind-3.22.0"
	if _, err := Compare(file(100, 200, 300), other, 0.015); !errors.Is(err, errBaseline) || !strings.Contains(err.Error(), "re-baseline") {
		t.Errorf("another valgrind: %v, want ErrBaseline asking to re-baseline", err)
	}
	if _, err := Compare(file(100, 200), file(100, 200, 300), 0.015); !errors.Is(err, errBaseline) {
		t.Errorf("another path set: %v, want ErrBaseline", err)
	}
}

// TestMain makes the test binary a target (instrpath: lab/runner over Paths) when
// targetEnv is set, so that Main can list its paths.
func TestMain(m *testing.M) {
	if os.Getenv(targetEnv) == "1" {
		os.Exit(runner.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, Subjects()))
	}
	os.Exit(m.Run())
}

const targetEnv = "SNOWLAB_INSTR_TEST_TARGET"

// fakeValgrind is a stand-in for valgrind: it prints cachegrind's
// "I refs" line for 1,000,000 + n x PERCALL instructions (PERCALL from
// the environment; BASECALL for a target whose name has "base" in it;
// NOISE more a call in two runs of every three of a target not base,
// counted in NOISEFILE),
// so that Main can be driven end to end without it.
func fakeValgrind(t *testing.T) string {
	t.Helper()
	t.Setenv(targetEnv, "1")
	script := `#!/bin/sh
if [ "$1" = --version ]; then echo valgrind-3.19.0; exit 0; fi
pc=$PERCALL noisy=$NOISEFILE
case "$4" in *base*) pc=$BASECALL noisy= ;; esac
while [ $# -gt 0 ]; do if [ "$1" = -n ]; then n=$2; fi; shift; done
if [ -n "$noisy" ]; then
	runs=$(($(cat "$NOISEFILE" 2>/dev/null || echo 0) + 1)); echo $runs >"$NOISEFILE"
	[ $((runs % 3)) -ne 0 ] && pc=$((pc + NOISE))
fi
echo "==1== I   refs:      $((1000000 + n * pc))" >&2
`
	p := filepath.Join(t.TempDir(), "valgrind")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The gate passes the count it recorded and fails one 3% dearer.
func TestMainGate(t *testing.T) {
	vg := fakeValgrind(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "b.json")
	args := []string{"-valgrind", vg, "-target", self, "-baseline", base}
	for _, c := range []struct {
		perCall string
		extra   []string
		code    int
	}{
		{"100", []string{"-write-baseline"}, 0},
		{"100", nil, 0},
		{"101", nil, 0},
		{"103", nil, 1},
		// The fake ignores the planted steps: a step measured at no
		// instructions is an error, never an endless or a zero plant.
		{"100", []string{"-inject", "3"}, 1},
	} {
		t.Setenv("PERCALL", c.perCall)
		var out, errb bytes.Buffer
		if code := Main(append(args, c.extra...), &out, &errb); code != c.code {
			t.Errorf("per call %s %v: exit %d, want %d\n%s%s", c.perCall, c.extra, code, c.code, out.String(), errb.String())
		}
	}
}

// twoBuilds is a folder with "base" and "head" in it, both this test
// binary (the fake valgrind tells them apart by name).
func twoBuilds(t *testing.T) (dir, base, head string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	dir = t.TempDir()
	base, head = filepath.Join(dir, "base"), filepath.Join(dir, "head")
	for _, p := range []string{base, head} {
		require.NoError(t, os.Symlink(self, p))
	}
	return dir, base, head
}

// -against counts a second build of the same paths and compares with it:
// a head 3% dearer than its base fails, one as dear passes, and no
// baseline file is read.
func TestMainAgainst(t *testing.T) {
	vg := fakeValgrind(t)
	dir, base, head := twoBuilds(t)
	args := []string{"-valgrind", vg, "-target", head, "-against", base, "-baseline", filepath.Join(dir, "none.json"), "-paths", "atomicgen/monotonic/nextid,decode/layout"}
	t.Setenv("BASECALL", "100")
	for perCall, code := range map[string]int{"100": 0, "101": 0, "103": 1} {
		t.Setenv("PERCALL", perCall)
		var out, errb bytes.Buffer
		got := Main(args, &out, &errb)
		assert.Equal(t, code, got, "head %s a call against 100: %s%s", perCall, out.String(), errb.String())
		assert.Contains(t, out.String(), "2 paths")
		if code == 1 {
			assert.Contains(t, errb.String(), "above "+base)
		}
	}
}

func TestMainBadInputAndSkip(t *testing.T) {
	for _, args := range [][]string{{"-tolerance", "0"}, {"-inject", "-1"}, {"-inject", "3", "-write-baseline"}, {"extra"}, {"-workers", "0"},
		{"-against", "x", "-write-baseline"}, {"-against", "x", "-inject", "3"}} {
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 2 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, want 2 and one line; got %q", args, code, errb.String())
		}
	}
	missing := []string{"-valgrind", filepath.Join(t.TempDir(), "no-valgrind")}
	t.Setenv(requireEnv, "")
	var out, errb bytes.Buffer
	if code := Main(missing, &out, &errb); code != 0 || !strings.Contains(out.String(), "skipped") {
		t.Errorf("no valgrind: exit %d, %q; want a skip", code, out.String())
	}
	t.Setenv(requireEnv, "1")
	if code := Main(missing, &out, &errb); code != 1 {
		t.Errorf("no valgrind, %s=1: exit %d, want 1", requireEnv, code)
	}
}

// -against keeps the least of three counts of each: a busy machine only
// adds to a count (the runtime's sysmon wakes by the wall clock), so two
// noisy runs of three, 3% dearer, do not fail a head as dear as its base
// (with one count each, the head reads 103 a call against 100).
func TestMainAgainstLeastOfThree(t *testing.T) {
	vg := fakeValgrind(t)
	dir, base, head := twoBuilds(t)
	t.Setenv("BASECALL", "100")
	t.Setenv("PERCALL", "100")
	t.Setenv("NOISE", "3")
	t.Setenv("NOISEFILE", filepath.Join(dir, "runs"))
	var out, errb bytes.Buffer
	code := Main([]string{"-valgrind", vg, "-target", head, "-against", base, "-paths", "decode/layout"}, &out, &errb)
	assert.Equal(t, 0, code, "%s%s", out.String(), errb.String())
}
