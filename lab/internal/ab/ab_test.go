package ab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fake writes a runner (testdata/fakerunner.sh) whose IDs cost cost ns
// each, reporting plant, with env set.
func fake(t *testing.T, name string, cost int, plant string, env ...string) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "fakerunner.sh"))
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), name)
	body := fmt.Sprintf("#!/bin/sh\nFAKE_COST=%d FAKE_PLANT=%s %s exec %s \"$@\"\n", cost, plant, strings.Join(env, " "), script)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o755))
	return p
}

func config(base, head string) Config {
	return Config{Base: base, Head: head, Rounds: 16, Slice: time.Millisecond, Seed: 7}
}

// TestRunSameAndSlower: the same cost is SAME on every workload and the
// gate passes; 20% dearer is DIFFERENT and worse on every one (the 10%
// minimum effect above G=1 included) and fails it; 20% cheaper is
// DIFFERENT and better and passes. The workloads are the subjects at 1,
// GOMAXPROCS and twice that, each pair measured in every round.
func TestRunSameAndSlower(t *testing.T) {
	base := fake(t, "base", 100, "none")
	for _, c := range []struct {
		cost int
		want decision
		fail bool
	}{{100, Same, false}, {120, Different, true}, {80, Different, false}} {
		res, err := Run(context.Background(), config(base, fake(t, "head", c.cost, "none")))
		require.NoError(t, err)
		require.Len(t, res.Rows, 6, "2 subjects x G = 1, 2, 4")
		for _, r := range res.Rows {
			assert.Equal(t, c.want, r.Decision, "cost %d: %s: %+v", c.cost, r.Workload, r)
			assert.Equal(t, 16, r.Pairs)
			assert.InDelta(t, float64(c.cost)/100-1, float64(r.Change), 0.01, "cost %d: %s", c.cost, r.Workload)
		}
		assert.Equal(t, c.fail, res.Err() != nil, "cost %d: %v", c.cost, res.Err())
		assert.True(t, res.CPU)
		assert.Equal(t, 2, res.GOMAXPROCS)
		assert.Nil(t, res.SelfCheck, "no planted builds: no self-check")
		var out bytes.Buffer
		require.NoError(t, res.Write(&out, &Build{BaseRev: "HEAD~1", HeadRev: "HEAD"}))
		assert.Contains(t, out.String(), map[bool]string{true: "gate: FAIL", false: "gate: PASS"}[c.fail])
		assert.Contains(t, out.String(), "fake/a G=4")
	}
}

// TestRunSelfCheck: the self-check's arms ride in the same rounds on the
// first subject, each decided as one of the gate's rows: a planted runner
// that is dearer is caught, a same-code second process is not DIFFERENT;
// a G=1 plant that costs nothing is a self-check miss, said.
func TestRunSelfCheck(t *testing.T) {
	base := fake(t, "base", 100, "none")
	cfg := config(base, base)
	cfg.Calls, cfg.Shared = fake(t, "calls", 110, "calls"), fake(t, "shared", 150, "shared")
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	sc := res.SelfCheck
	require.NotNil(t, sc)
	assert.Equal(t, 51, sc.PlantCalls, "5% of 1,024 extra calls, uncounted without valgrind")
	assert.True(t, sc.Calls.Worse)
	assert.Equal(t, Workload{"fake/a", 1}, sc.Calls.Workload)
	assert.True(t, sc.Shared.Worse)
	assert.Equal(t, Workload{"fake/a", 2}, sc.Shared.Workload)
	require.Len(t, sc.Same, 2)
	for _, r := range sc.Same {
		assert.NotEqual(t, Different, r.Decision)
	}
	assert.Empty(t, sc.Missed)
	assert.InDelta(t, 1, sc.Contention, 0.02)
	var out bytes.Buffer
	require.NoError(t, res.Write(&out, &Build{BaseRev: "a", HeadRev: "b"}))
	assert.Regexp(t, `on this machine, now: detects \+(9|10)\.\d% at G=1 and detects \+\d+\.\d% at G=2`, out.String())
	assert.Contains(t, out.String(), "false alarms 0 of 2 same-code comparisons")

	cfg.Calls = fake(t, "calls", 100, "calls")
	res, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, res.SelfCheck.Missed, 1)
	assert.Contains(t, res.SelfCheck.Missed[0], "were not caught")
	assert.NoError(t, res.Err(), "a self-check miss does not fail the gate")

	cfg.Calls = fake(t, "calls", 110, "none")
	_, err = Run(context.Background(), cfg)
	assert.ErrorContains(t, err, `it plants "none", want "calls"`)
}

// TestRunCorrectness: an order violation in a slice, or a duplicate in a
// build's check, fails the gate whatever the timings say.
func TestRunCorrectness(t *testing.T) {
	base := fake(t, "base", 100, "none")
	for _, env := range []string{"FAKE_VIOLATIONS=3", "FAKE_DUPLICATES=2"} {
		res, err := Run(context.Background(), config(base, fake(t, "head", 100, "none", env)))
		require.NoError(t, err)
		require.Error(t, res.Err(), env)
		assert.Contains(t, res.Err().Error(), "correctness failure")
		assert.True(t, strings.HasPrefix(res.Failures[0], "head, "), res.Failures[0])
	}
}

// TestRunRefuses: a configuration that cannot run, or a subject the
// runner lacks, is ErrUsage; a runner that does not speak the protocol
// is said.
func TestRunRefuses(t *testing.T) {
	base := fake(t, "base", 100, "none")
	for _, cfg := range []Config{
		{Base: base, Head: base, Rounds: 1, Slice: time.Millisecond},
		{Base: base, Head: base, Rounds: 5, Slice: 0},
		{Base: base, Head: base, Rounds: 5, Slice: time.Millisecond, Gs: []int{0}},
		{Base: base, Head: base, Rounds: 5, Slice: time.Millisecond, PlantPct: 200},
		{Base: base, Head: base, Rounds: 5, Slice: time.Millisecond, Subjects: []string{"nope"}},
	} {
		_, err := Run(context.Background(), cfg)
		assert.ErrorIs(t, err, ErrUsage, "%+v", cfg)
	}
	_, err := Run(context.Background(), Config{Base: base, Head: base, Rounds: 5, Slice: time.Millisecond, Options: Options{Alpha: 2}})
	assert.ErrorIs(t, err, ErrOptions)
	_, err = Run(context.Background(), config("/bin/true", base))
	assert.ErrorContains(t, err, "no greeting")
}

// TestWriteJSON: one object with pass, the builds and every row; figures
// no pairs could give are null, never NaN (which JSON cannot hold).
func TestWriteJSON(t *testing.T) {
	base := fake(t, "base", 100, "none")
	res, err := Run(context.Background(), config(base, fake(t, "head", 130, "none")))
	require.NoError(t, err)
	res.Rows = append(res.Rows, compare(Workload{"none", 1}, "base", "head", nil, nil, nil, nil, 0.05))
	var out bytes.Buffer
	require.NoError(t, res.WriteJSON(&out, &Build{BaseRev: "HEAD~1", HeadRev: "HEAD", BaseCommit: "aaa", HeadCommit: "bbb"}))
	var got struct {
		Pass  bool   `json:"pass"`
		Base  string `json:"base"`
		Error string `json:"error"`
		Rows  []struct {
			Decision decision `json:"decision"`
			Change   *float64 `json:"change"`
			Worse    bool     `json:"worse"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	assert.False(t, got.Pass)
	assert.Equal(t, "HEAD~1", got.Base)
	assert.Contains(t, got.Error, "DIFFERENT and worse")
	require.Len(t, got.Rows, 7)
	assert.True(t, got.Rows[0].Worse)
	assert.Nil(t, got.Rows[6].Change, "no pairs: null")
}

// TestBuildRevisions builds snowlab's own runner from HEAD into a git
// worktree, twice over (base and head, one commit: byte for byte the same
// binary), with base's two planted runners; each greets with its plant,
// and the worktree is gone after Close.
func TestBuildRevisions(t *testing.T) {
	if testing.Short() {
		t.Skip("checks HEAD out and builds four runners")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if _, err := git(context.Background(), "", "rev-parse", "HEAD"); err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	dir := t.TempDir()
	b, err := BuildRevisions(context.Background(), Source{}, "HEAD", "HEAD", dir, true, nil)
	require.NoError(t, err)
	defer b.Close()
	assert.True(t, b.Identical)
	assert.Equal(t, b.BaseCommit, b.HeadCommit)
	for bin, plant := range map[string]string{b.Base: "none", b.Calls: "calls", b.Shared: "shared"} {
		h, err := hello(context.Background(), arm{Name: filepath.Base(bin), Bin: bin, Plant: plant})
		require.NoError(t, err, bin)
		assert.Equal(t, []string{"atomicgen/monotonic", "mutexgen/monotonic", "shardedgen/node-per-shard/monotonic"}, h.Subjects)
	}
	wt := filepath.Join(dir, "wt-"+b.BaseCommit[:12])
	_, err = os.Stat(wt)
	require.NoError(t, err)
	b.Close()
	_, err = os.Stat(wt)
	assert.ErrorIs(t, err, os.ErrNotExist, "the worktree is removed")
	_, err = BuildRevisions(context.Background(), Source{}, "HEAD", "no-such-revision-anywhere", dir, false, nil)
	assert.ErrorContains(t, err, "is not a commit")
}

// TestIdleCell: a workload no arm answered in the first rounds (a host
// that never ran the goroutines side by side) is measured no more; the
// others are.
func TestIdleCell(t *testing.T) {
	m := &measurement{}
	for r := range idleRounds {
		m.Samples = append(m.Samples, sample{Round: r, Cell: 0}, sample{Round: r, Cell: 1})
		m.Samples[len(m.Samples)-1].IDs = 1
	}
	assert.False(t, m.idle(0, idleRounds-1), "not before the rounds are in")
	assert.True(t, m.idle(0, idleRounds))
	assert.False(t, m.idle(1, idleRounds))
}
