package lab_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/cli"
)

// modules are this repository's modules a user's module requiring the lab
// pulls in, by folder: the throwaway module below replaces each with its
// working copy, as go.work does inside the tree.
var modules = map[string]string{
	"github.com/snowlab/snowlab":           ".",
	"github.com/snowlab/snowlab/lab":       "lab",
	"github.com/snowlab/snowlab/etcdlease": "etcdlease",
	"github.com/snowlab/snowlab/pglease":   "pglease",
	"github.com/snowlab/snowlab/k8slease":  "k8slease",
	"github.com/snowlab/snowlab/snowidd":   "snowidd",
	"github.com/snowlab/snowlab/zklease":   "zklease",
}

// TestOwnGenExample is the own-generator example (testdata/owngen, the
// main its workflow.yml runs) as a user runs it: a throwaway git
// repository whose module requires the lab and holds the example as
// bench/main.go, a base commit, and a head commit whose generator does
// its work twice. loadgen ab -pkg ./bench builds both from their commits
// (and base's planted runners for its self-check) and fails the change;
// loadgen instr -against counts the two kept builds and fails it too,
// and passes base against itself.
func TestOwnGenExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example from two commits, measures them and counts them")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	repo := t.TempDir()
	mod := "module example.com/mine\n\ngo 1.26.0\n\nrequire github.com/snowlab/snowlab/lab v0.0.0-00010101000000-000000000000\n\nreplace (\n"
	for path, dir := range modules {
		mod += "\t" + path + " => " + filepath.Join(root, dir) + "\n"
	}
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte(mod+")\n"), 0o644))
	var sums []byte
	for _, f := range []string{"go.sum", "lab/go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		sums = append(sums, b...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.sum"), sums, 0o644))
	main, err := os.ReadFile(filepath.Join("testdata", "owngen", "main.go"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "bench"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "bench", "main.go"), main, 0o644))
	run := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %v: %s", name, args, out)
		return strings.TrimSpace(string(out))
	}
	// Offline, from the module cache the tree's own build filled.
	run([]string{"GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off"}, "go", "mod", "tidy")
	git := func(args ...string) string {
		return run(nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	base := git("rev-parse", "HEAD")
	slow := strings.Replace(string(main), "return last.Add(1), nil", "last.Add(1)\n\t\treturn last.Add(1), nil", 1)
	require.NotEqual(t, string(main), slow, "the example's generator is where the test makes it slower")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "bench", "main.go"), []byte(slow), 0o644))
	git("commit", "-q", "-am", "head: every ID minted twice")
	head := git("rev-parse", "HEAD")

	bins := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := cli.Main([]string{"ab", "-C", repo, "-pkg", "./bench", "-keep", bins, "-rounds", "12", "-slice", "10ms", "-valgrind", "", "-q", base, head}, &stdout, &stderr)
	out := stdout.String()
	assert.Equal(t, 1, code, "%s\n%s", out, stderr.String())
	assert.Contains(t, out, "mine/counter G=1")
	assert.Regexp(t, `mine/counter G=1 .* DIFFERENT: worse, FAIL`, out)
	assert.Contains(t, out, "gate: FAIL")
	assert.Contains(t, out, "self-check", "base's planted runners built from the user's package")
	for _, b := range []string{"base", "head", "base-calls", "base-shared"} {
		_, err := os.Stat(filepath.Join(bins, b))
		assert.NoError(t, err, "-keep: %s", b)
	}

	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Log("no valgrind: loadgen instr -against not run")
		return
	}
	stdout.Reset()
	stderr.Reset()
	code = cli.Main([]string{"instr", "-target", filepath.Join(bins, "head"), "-against", filepath.Join(bins, "base")}, &stdout, &stderr)
	assert.Equal(t, 1, code, "twice the work counts more: %s\n%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "mine/counter")
	stdout.Reset()
	stderr.Reset()
	code = cli.Main([]string{"instr", "-target", filepath.Join(bins, "base"), "-against", filepath.Join(bins, "base")}, &stdout, &stderr)
	assert.Equal(t, 0, code, "the same build counts the same: %s\n%s", stdout.String(), stderr.String())
}
