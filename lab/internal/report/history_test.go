package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

func TestNewHistory(t *testing.T) {
	dir := t.TempDir()
	runs := historyRuns(t, dir)
	// Given newest first: the history orders them by date.
	for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
		runs[i], runs[j] = runs[j], runs[i]
	}
	h := NewHistory(runs, nil)
	require.Len(t, h.Runs, 5)
	for i := 1; i < len(h.Runs); i++ {
		assert.True(t, h.Runs[i-1].Run.Started.Before(h.Runs[i].Run.Started), "run %d after run %d", i, i-1)
	}
	assert.Equal(t, "1111111", h.Runs[0].Run.Commit)

	want := compare.Ratios(fixture.Run())
	require.Len(t, h.Ratios, len(want), "one trend per ratio")
	for i, r := range want {
		assert.Equal(t, r.Name, h.Ratios[i].Name)
		assert.Equal(t, r.Informational, h.Ratios[i].Informational)
	}
	for _, tr := range append(h.Ratios, h.Rates...) {
		for _, s := range tr.Series {
			host := strings.Fields(s.Host)[0]
			for _, p := range s.Points {
				assert.Equal(t, host, resultdir.Slug(h.Runs[p.Run].Run.Host), "%s: a series holds one host's runs", tr.Name)
			}
		}
	}

	// IDs/s of atomicgen/strict: G=1 and G=max (4) per host, values in run order.
	i := -1
	for k, tr := range h.Rates {
		if tr.Name == "atomicgen/strict" {
			i = k
		}
	}
	require.GreaterOrEqual(t, i, 0)
	hosts := map[string][]point{}
	for _, s := range h.Rates[i].Series {
		hosts[s.Host] = s.Points
	}
	assert.Len(t, hosts, 4)
	require.Len(t, hosts["lab-vm-3 ×8 · AMD EPYC 7B13 64-Core G=1"], 3)
	require.Len(t, hosts["ci-runner-7 ×2 · AMD EPYC 7B13 64-Core G=max (4)"], 2)
	assert.Equal(t, []int{0, 1, 3}, []int{hosts["lab-vm-3 ×8 · AMD EPYC 7B13 64-Core G=1"][0].Run, hosts["lab-vm-3 ×8 · AMD EPYC 7B13 64-Core G=1"][1].Run, hosts["lab-vm-3 ×8 · AMD EPYC 7B13 64-Core G=1"][2].Run})
	assert.InDelta(t, 1.04*hosts["lab-vm-3 ×8 · AMD EPYC 7B13 64-Core G=1"][0].Value, hosts["lab-vm-3 ×8 · AMD EPYC 7B13 64-Core G=1"][1].Value, 1e-6)
	assert.Equal(t, "mutexgen/strict", h.Rates[0].Name, "subjects in the run's order")

	// Fairness: each generator's and peer's deviation at the largest G
	// judged (4), a series per host, in the order of the rates; the
	// limits keep none.
	require.NotEmpty(t, h.Fairness)
	assert.Equal(t, "mutexgen/strict", h.Fairness[0].Name)
	for _, tr := range h.Fairness {
		assert.NotContains(t, tr.Name, "limit/", "no fairness for a physical limit")
		if tr.Name != "atomicgen/monotonic" {
			continue
		}
		require.Len(t, tr.Series, 2)
		assert.Equal(t, "lab-vm-3 ×8 · AMD EPYC 7B13 64-Core G=4", tr.Series[0].Host)
		assert.Equal(t, []point{{0, 60}, {1, 60}, {3, 60}}, tr.Series[0].Points, "the flagged G=4 of the fixture")
	}
}

func TestNewHistoryEmpty(t *testing.T) {
	h := NewHistory(nil, nil)
	assert.Empty(t, h.Runs)
	var buf bytes.Buffer
	require.NoError(t, WriteIndex(&buf, h))
	has(t, buf.String(), "0 runs on 0 hosts")
	assert.NotContains(t, buf.String(), "<svg")
}

func TestWriteIndex(t *testing.T) {
	runs := historyRuns(t, t.TempDir())
	runs[2].Page = ""
	runs[4].Run.Failures = []string{"x"}
	runs[4].Run.Started = time.Time{}
	h := NewHistory(runs, nil)
	var buf bytes.Buffer
	require.NoError(t, WriteIndex(&buf, h))
	page := buf.String()
	assert.Equal(t, len(h.Ratios)+len(h.Rates)+len(h.Fairness), strings.Count(page, "<svg "))
	has(t, page, "5 runs on 2 hosts")
	for _, r := range h.Runs {
		has(t, page, "<code>"+r.Run.Commit+"</code>")
	}
	has(t, page, `<a href="`+runs[0].Page+`">`)
	assert.Equal(t, 4, strings.Count(page, ">page</a>"), "a link for each run with a page")
	has(t, page, `<span class="fail">1 failed</span>`)
	has(t, page, "<td>unknown</td>", "a run without a date")
	has(t, page, "lab-vm-3 ×8")
	has(t, page, "ci-runner-7 ×2")
	has(t, page, "atomicgen/strict: IDs/s")
	for _, ref := range []string{"http://", "https://", "<script", "<link", "url("} {
		assert.False(t, strings.Contains(page, ref), "self-contained: %q", ref)
	}
}

func TestHostKey(t *testing.T) {
	run := fixture.Run()
	assert.Equal(t, "lab-vm-3 ×8 · AMD EPYC 7B13 64-Core", hostKey(run))
	run.Host.CPU = "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz"
	assert.Equal(t, "lab-vm-3 ×8 · Intel Xeon E5-2680 v4", hostKey(run))
	run.Host.CPU = ""
	assert.Equal(t, "lab-vm-3 ×8", hostKey(run))
}

func TestShortRevision(t *testing.T) {
	for in, want := range map[string]string{"": "?", "6bc4800": "6bc4800", "6bc4800+dirty": "6bc4800+",
		"0123456789abcdef": "0123456"} {
		assert.Equal(t, want, shortRevision(in), in)
	}
}

// has asserts that page contains s, without printing the page (its SVG
// runs to hundreds of lines) when it does not.
func has(t *testing.T, page, s string, msg ...any) {
	t.Helper()
	if !strings.Contains(page, s) {
		t.Errorf("page lacks %q %v", s, msg)
	}
}

// historyRuns are fixture runs at five commits on two hosts, each with its
// page written in dir, as a results folder holds them.
func historyRuns(t *testing.T, dir string) []HistoryRun {
	var runs []HistoryRun
	for i, c := range []struct {
		commit, host string
		procs        int
		scale        float64
	}{
		{"1111111", "lab-vm-3", 8, 1}, {"2222222", "lab-vm-3", 8, 1.04}, {"3333333", "ci-runner-7", 2, 0.4},
		{"4444444", "lab-vm-3", 8, 0.97}, {"5555555", "ci-runner-7", 2, 0.42},
	} {
		run := fixture.Run()
		run.Commit, run.Dirty = c.commit, false
		run.Started = run.Started.Add(time.Duration(i) * 24 * time.Hour)
		run.Host.Hostname, run.Host.GOMAXPROCS = c.host, c.procs
		for k := range run.Saturate {
			s := &run.Saturate[k]
			s.IDsPerSec *= c.scale
			for j := range s.Samples {
				s.Samples[j] *= c.scale
			}
		}
		page := resultdir.Stem(run) + ".html"
		writeFile(t, filepath.Join(dir, page), func(b *bytes.Buffer) error { return writeHTML(b, run) })
		runs = append(runs, HistoryRun{Run: run, Page: page})
	}
	return runs
}

func writeFile(t *testing.T, path string, write func(*bytes.Buffer) error) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, write(&buf))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// TestNewHistoryHostsApart: one host name, two kinds of machine (as "vm"
// was here): two series, never one line.
func TestNewHistoryHostsApart(t *testing.T) {
	a, b := fixture.Run(), fixture.Run()
	b.Started = a.Started.Add(time.Hour)
	b.Host.CPU = "Oxide Virtual Turin-like Processor"
	h := NewHistory([]HistoryRun{{Run: a}, {Run: b}}, nil)
	require.NotEmpty(t, h.Ratios)
	for _, tr := range h.Ratios {
		require.Len(t, tr.Series, 2, tr.Name)
		assert.Len(t, tr.Series[0].Points, 1)
		assert.Len(t, tr.Series[1].Points, 1)
	}
}

// TestHistoryGatedFirst: the ratios the gate checks lead the history,
// whatever order compare.Ratios gives; with a baseline, only those it
// gates.
func TestHistoryGatedFirst(t *testing.T) {
	run := fixture.Run()
	// mutexgen/monotonic first: its ratio over the limit is reported,
	// not gated, and compare.Ratios lists it before atomicgen's.
	run.Subjects = append([]result.SubjectInfo{{Name: "mutexgen/monotonic", Nodes: 1, CeilingIDs: 4_096_000,
		Limit: subject.LimitClockCAS}}, run.Subjects...)
	for _, r := range run.Saturate {
		if r.Subject == "atomicgen/monotonic" {
			r.Subject = "mutexgen/monotonic"
			run.Saturate = append(run.Saturate, r)
		}
	}
	ratios := compare.Ratios(run)
	require.True(t, ratios[0].Informational, "the fixture leads with a reported ratio: %s", ratios[0].Name)

	for _, tc := range []struct {
		name  string
		base  *result.Run
		gated []string
	}{
		{"no baseline: every ratio the gate would check", nil, []string{"atomicgen/monotonic ns/ID over limit/clock+cas @G=1"}},
		{"a baseline with it", fixture.Run(), []string{"atomicgen/monotonic ns/ID over limit/clock+cas @G=1"}},
		{"a baseline without it", &result.Run{Subjects: fixture.Run().Subjects}, nil},
	} {
		h := NewHistory([]HistoryRun{{Run: run}}, tc.base)
		require.Len(t, h.Ratios, len(ratios), tc.name)
		var gated []string
		for i, tr := range h.Ratios {
			if tr.Gated {
				gated = append(gated, tr.Name)
				assert.False(t, tr.Informational, "%s: %s", tc.name, tr.Name)
				assert.Len(t, gated, i+1, "%s: %s after a ratio not gated", tc.name, tr.Name)
			}
		}
		assert.Equal(t, tc.gated, gated, tc.name)

		var buf bytes.Buffer
		require.NoError(t, WriteIndex(&buf, h))
		page := buf.String()
		gatedAt, ungatedAt, runsAt := strings.Index(page, `<section id="gated">`), strings.Index(page, `<section id="ungated">`),
			strings.Index(page, `<section id="runs">`)
		assert.True(t, 0 < gatedAt && gatedAt < runsAt && runsAt < ungatedAt, "%s: gated, runs, then the rest", tc.name)
		assert.Equal(t, len(gated), strings.Count(page[gatedAt:runsAt], "<svg "), tc.name)
		if len(gated) == 0 {
			has(t, page, "No run here measured the saturate sweep the gated ratios come from.")
		}
	}
}

// TestHistoryLoadChanges: a run whose host was loaded differently from
// the run before it on the same host is named at the top of the page;
// the load of every run is in the table, "not recorded" for older files.
func TestHistoryLoadChanges(t *testing.T) {
	quiet := &result.Load{CPUs: 8, Own: 0.9, Other: 0.03}
	busy := &result.Load{CPUs: 8, Own: 0.5, Other: 0.41, Steal: 0.02}
	runs := historyRuns(t, t.TempDir())
	// lab-vm-3: runs 0, 1 and 3; ci-runner-7: 2 and 4.
	runs[0].Run.Host.Load = quiet
	runs[1].Run.Host.Load = busy  // after a quiet run on its host: a change
	runs[2].Run.Host.Load = busy  // the first on its host
	runs[3].Run.Host.Load = nil   // not recorded: no rule either way
	runs[4].Run.Host.Load = quiet // after a busy run on ci-runner-7
	h := NewHistory(runs, nil)
	require.Len(t, h.LoadChanges, 2)
	assert.Equal(t, loadChange{Run: 1, Previous: 0, Host: "lab-vm-3 ×8 · AMD EPYC 7B13 64-Core",
		Difference: "other processes and steal took 3% vs 43% of the CPU time; steal 0% vs 2%"}, h.LoadChanges[0])
	assert.Equal(t, 4, h.LoadChanges[1].Run)
	assert.Equal(t, 2, h.LoadChanges[1].Previous)

	var buf bytes.Buffer
	require.NoError(t, WriteIndex(&buf, h))
	page := buf.String()
	has(t, page, `<section id="load-changes">`)
	has(t, page, "<li>#1 (2222222) after #0 (1111111) on lab-vm-3 ×8 · AMD EPYC 7B13 64-Core: other processes and steal took 3% vs 43% of the CPU time; steal 0% vs 2%</li>")
	has(t, page, `<span class="fail">others 41% · steal 2% (busy)</span>`)
	has(t, page, "<td>others 3%</td>")
	has(t, page, "<td>not recorded</td>")
	assert.Less(t, strings.Index(page, `id="load-changes"`), strings.Index(page, `id="gated"`), "the warning first")

	for i := range runs {
		runs[i].Run.Host.Load = nil
	}
	h = NewHistory(runs, nil)
	assert.Empty(t, h.LoadChanges, "older files: nothing to compare")
	buf.Reset()
	require.NoError(t, WriteIndex(&buf, h))
	assert.NotContains(t, buf.String(), "load-changes")
}

// TestHistoryChangePoints: a gated ratio that steps 30% worse after six
// runs of twelve has one change point, at the seventh run, on the page's
// "What changed" and the chart's caption; the flat ratios have none.
func TestHistoryChangePoints(t *testing.T) {
	var runs []HistoryRun
	for k := range 12 {
		run := fixture.Sweep(6)
		run.Started = run.Started.Add(time.Duration(k) * time.Hour)
		run.Commit = fmt.Sprintf("c%06d", k)
		slow := 1 + 0.01*float64(k%3) // run-to-run noise
		if k >= 6 {
			slow *= 1.3
		}
		for i := range run.Saturate {
			if s := &run.Saturate[i]; s.Subject == "atomicgen/monotonic" && s.Goroutines == 1 {
				for j := range s.Samples {
					s.Samples[j] /= slow
				}
				for j := range s.CPUSamples {
					s.CPUSamples[j] /= slow
				}
			}
		}
		runs = append(runs, HistoryRun{Run: run})
	}
	h := NewHistory(runs, nil)
	const name = "atomicgen/monotonic ns/ID over limit/clock+cas @G=1"
	found := 0
	for _, tr := range h.Ratios {
		if tr.Name != name {
			assert.Empty(t, tr.Changes, tr.Name)
			continue
		}
		require.True(t, tr.Gated)
		require.Len(t, tr.Changes, 1)
		assert.Equal(t, 6, tr.Changes[0].Run)
		assert.InDelta(t, 1.3, tr.Changes[0].After/tr.Changes[0].Before, 0.02)
		found++
	}
	require.Equal(t, 1, found)
	var buf bytes.Buffer
	require.NoError(t, WriteIndex(&buf, h))
	page := buf.String()
	changes := page[strings.Index(page, `<section id="changes">`):strings.Index(page, `<section id="gated">`)]
	has(t, changes, "atomicgen/monotonic ns/ID over limit/clock") // html/template writes + as &#43;
	has(t, changes, "at #6 (c000006)")
	has(t, page, "Change point at #6 (c000006)")
}
