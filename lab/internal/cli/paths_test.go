package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// TestDefaultOutputIsIgnored: every subcommand that writes results writes
// by default into a folder this checkout's .gitignore leaves out and that
// holds no tracked file, so running the lab never dirties the checkout.
func TestDefaultOutputIsIgnored(t *testing.T) {
	for _, cmd := range []string{"run", "service", "faults", "contention", "gates"} {
		_, _, errs := runArgs(cmd, "-h")
		assert.Contains(t, errs, `(default "`+resultdir.DefaultOut()+`")`, "loadgen %s -out", cmd)
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	git := func(args ...string) (string, error) {
		c := exec.Command("git", args...)
		c.Dir = strings.TrimSpace(string(root))
		out, err := c.CombinedOutput()
		return string(out), err
	}
	// A run's files as the lab names them, and the folder's history page.
	stem := resultdir.Stem(&result.Run{Started: time.Now(), Host: result.Host{Hostname: "vm"}, Commit: "abc1234"})
	for _, p := range []string{stem + ".json", stem + ".md", stem + ".html", stem + "/saturate.svg", "index.html", stem + "-btree.json"} {
		path := filepath.ToSlash(filepath.Join(resultdir.DefaultOut(), p))
		out, err := git("check-ignore", "--no-index", "-v", path)
		assert.NoError(t, err, "git does not ignore %s: %s", path, out)
	}
	tracked, err := git("ls-files", "--", filepath.ToSlash(resultdir.DefaultOut()))
	require.NoError(t, err, tracked)
	assert.Empty(t, tracked, "no tracked file under the default output folder")
	// The published folder and the baseline are not ignored: committing a
	// run there is the deliberate step.
	for _, dir := range []string{resultdir.Published, resultdir.Baseline} {
		_, err := git("check-ignore", "--no-index", "-q", dir+"/x.json")
		assert.Error(t, err, "%s is ignored", dir)
	}
}

// TestRunWritesOnlyTheLocalFolder: a suite run with the default options,
// in a folder with published runs, writes under results/local/ alone, and
// its history page there shows the published runs beside its own.
func TestRunWritesOnlyTheLocalFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	published := publishedRun(t, "aaaaaaa")
	before := tree(t, dir)

	code, out, errs := runArgs(append([]string{"run", "-subjects", "atomicgen/strict", "-workloads", "saturate"}, tiny...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "wrote "+filepath.Join(resultdir.DefaultOut(), "index.html")+" (2 runs)")
	for path := range tree(t, dir) {
		if before[path] {
			continue
		}
		assert.True(t, strings.HasPrefix(path, filepath.ToSlash(resultdir.Local)+"/"), "wrote %s, outside %s", path, resultdir.Local)
	}
	page, err := os.ReadFile(filepath.Join(resultdir.DefaultOut(), "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "aaaaaaa", "the published run is on the local history page")
	assert.FileExists(t, published, "untouched")
	assert.NoFileExists(t, filepath.Join(resultdir.Published, "index.html"), "the published page is publish's to write")
}

// TestPublish: publish copies the newest local run (or those named) with
// its page and charts into results/ and refreshes results/index.html;
// nothing to publish, or a file that is no result, is a usage error.
func TestPublish(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)

	code, _, errs := runArgs("publish")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "nothing to publish")
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)

	older := localRun(t, "bbbbbbb", 10)
	newer := localRun(t, "ccccccc", 11)
	code, out, errs := runArgs("publish")
	require.Equal(t, exitOK, code, errs)
	stem := strings.TrimSuffix(filepath.Base(newer), ".json")
	for _, p := range []string{stem + ".json", stem + ".md", stem + ".html", filepath.Join(stem, "saturate.svg")} {
		assert.FileExists(t, filepath.Join(resultdir.Published, p))
		assert.Contains(t, out, "wrote "+filepath.Join(resultdir.Published, p)+"\n")
	}
	assert.NoFileExists(t, filepath.Join(resultdir.Published, filepath.Base(older)), "only the newest")
	assert.Contains(t, out, "wrote "+filepath.Join(resultdir.Published, "index.html")+" (1 runs)")
	data, err := os.ReadFile(filepath.Join(resultdir.Published, filepath.Base(newer)))
	require.NoError(t, err)
	orig, err := os.ReadFile(newer)
	require.NoError(t, err)
	assert.Equal(t, orig, data)

	code, out, errs = runArgs("publish", older)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "(2 runs)")

	bad := filepath.Join(resultdir.DefaultOut(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"schema":`), 0o644))
	code, _, errs = runArgs("publish", bad)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "bad.json")
	assert.NoFileExists(t, filepath.Join(resultdir.Published, "bad.json"))
}

// TestHistoryDefault: loadgen history with no argument reads the
// published and the local runs and writes the local page, never the
// published one.
func TestHistoryDefault(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, _, errs := runArgs("history")
	assert.Equal(t, exitUsage, code, "no folder to read")
	assert.Contains(t, errs, "no results/ or results/local/ folder here")

	publishedRun(t, "aaaaaaa")
	code, out, errs := runArgs("history")
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, "wrote "+filepath.Join(resultdir.DefaultOut(), "index.html")+" (1 runs)\n", out)
	localRun(t, "bbbbbbb", 10)
	code, out, errs = runArgs("history")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "(2 runs)")
	assert.NoFileExists(t, filepath.Join(resultdir.Published, "index.html"))
}

// publishedRun writes a suite run into results/ and returns its path.
func publishedRun(t *testing.T, commit string) string {
	t.Helper()
	return writeRun(t, resultdir.Published, commit, 9)
}

// localRun writes a suite run with its page and one chart into
// results/local/, as the lab does, and returns its JSON's path.
func localRun(t *testing.T, commit string, hour int) string {
	t.Helper()
	path := writeRun(t, resultdir.DefaultOut(), commit, hour)
	stem := strings.TrimSuffix(path, ".json")
	require.NoError(t, os.WriteFile(stem+".md", []byte("# run\n"), 0o644))
	require.NoError(t, os.WriteFile(stem+".html", []byte("<!DOCTYPE html>"), 0o644))
	require.NoError(t, os.MkdirAll(stem, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stem, "saturate.svg"), []byte("<svg/>"), 0o644))
	return path
}

func writeRun(t *testing.T, dir, commit string, hour int) string {
	t.Helper()
	run := &result.Run{Schema: result.SchemaVersion, Commit: commit,
		Started: time.Date(2026, 3, 14, hour, 0, 0, 0, time.UTC), Host: result.Host{Hostname: "lab-vm-3", GOMAXPROCS: 2},
		Subjects: []result.SubjectInfo{{Name: "atomicgen/strict", Strict: true, Nodes: 1, CeilingIDs: 4.096e6}},
		Saturate: []result.SaturateResult{{Subject: "atomicgen/strict", Goroutines: 1, IDsPerSec: 4e6}}}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, resultdir.Stem(run)+".json")
	require.NoError(t, resultdir.WriteJSON(path, run))
	return path
}

// tree is every file under dir, slash-separated and relative to it.
func tree(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = true
		return err
	}))
	return files
}
