package lab_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/cli"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// TestOwnGenExample builds the own-generator example
// (testdata/owngen, the main its workflow.yml runs), runs it twice, as a
// main-branch run that becomes the baseline and as a pull request's run,
// and gates the second against the first with loadgen gate, as the
// workflow does: the gate passes, each run carries its commit and
// comes with the suite's report, charts and page.
func TestOwnGenExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example twice (about 5 s)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "owngen")
	build := exec.Command("go", "build", "-o", bin, "./testdata/owngen")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	runs := map[string]string{}
	for _, name := range []string{"baseline", "new"} {
		folder := filepath.Join(dir, name)
		out, err := exec.Command(bin, "-out", folder, "-duration", "30ms").CombinedOutput()
		require.NoError(t, err, "%s", out)
		jsons, _ := filepath.Glob(filepath.Join(folder, "*.json"))
		require.Len(t, jsons, 1, "%s", out)
		runs[name] = jsons[0]
		stem := jsons[0][:len(jsons[0])-len(".json")]
		for _, f := range []string{stem + ".md", stem + ".html", filepath.Join(stem, "saturate.svg")} {
			_, err := os.Stat(f)
			assert.NoError(t, err, "the run's files: %s", f)
		}
		run, err := result.Read(jsons[0])
		require.NoError(t, err)
		assert.NotEmpty(t, run.Commit, "an own run carries its commit")
		assert.Empty(t, run.Failures)
	}

	var stdout, stderr bytes.Buffer
	code := cli.Main([]string{"gate", "-baseline", filepath.Dir(runs["baseline"]), runs["new"]}, &stdout, &stderr)
	assert.Equal(t, 0, code, "%s\n%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "mine/counter ns/ID over limit/clock+add @G=1")
	assert.Contains(t, stdout.String(), "mine/counter ns/ID over limit/clock+add @G=2")
	assert.Contains(t, stdout.String(), "gate: PASS")

	// The gate fails the job when the two runs share no ratio (a
	// baseline of another generator): it never passes on nothing.
	other := filepath.Join(dir, "other.json")
	require.NoError(t, resultdir.WriteJSON(other, &result.Run{Schema: result.SchemaVersion, Commit: "abc1234"}))
	stdout.Reset()
	stderr.Reset()
	assert.NotEqual(t, 0, cli.Main([]string{"gate", "-baseline", other, runs["new"]}, &stdout, &stderr))
}
