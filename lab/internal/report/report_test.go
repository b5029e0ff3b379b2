package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/result"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixturePMU is why fixture.Run's host counts no hardware events.
const fixturePMU = "unavailable: perf_event_open: permission denied (perf_event_paranoid is 4; needs 2 or less)"

func markdownOf(t *testing.T, run *result.Run) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, writeMarkdown(&buf, run))
	return buf.String()
}

// mdSection returns the Markdown from the heading "## name" to the next
// level-2 heading.
func mdSection(md, name string) string {
	i := strings.Index(md, "\n## "+name+"\n")
	if i < 0 {
		return ""
	}
	rest := md[i+1:]
	if j := strings.Index(rest[3:], "\n## "); j >= 0 {
		return rest[:j+3]
	}
	return rest
}

// cells splits a Markdown table row on its unescaped pipes.
func cells(row string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row):
			cur.WriteByte(row[i])
			cur.WriteByte(row[i+1])
			i++
		case row[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	out = append(out, strings.TrimSpace(cur.String()))
	return out[1 : len(out)-1] // outside the leading and trailing pipes
}

func TestWriteMarkdown(t *testing.T) {
	run := fixture.Run()
	md := markdownOf(t, run)

	for _, s := range run.Subjects {
		assert.Contains(t, md, s.Name)
	}
	assert.Contains(t, md, run.Host.CPU)
	assert.Contains(t, md, run.Failures[0])
	for _, want := range []string{
		"# snowlab lab run, 2026-03-14 on lab-vm-3",
		"- **Date:** 2026-03-14 09:26:53 UTC (took 3m41s)\n- **Commit:** `6bc4800+dirty`\n",
		"- **Schema:** 2\n",
		"`6bc4800+dirty`",
		"`snowlab-lab run -burst -saturate -steady -out results/`",
		"## Host", "### Clock audit", "## Subjects", "## Burst", "## Saturate", "## Steady", "## Failures",
		"| Property | Value |",
		"| Caches | line 64 B · L1d 32 KiB · L2 512 KiB · L3 32 MiB |",
		"| Hypervisor | KVM |",
		"| Load | not recorded (not measured by the lab or experiment that wrote this file) |",
		"| Clocksource | kvm-clock |",
		"| Source | Cost per read | Observed resolution | Kernel resolution |",
		"| default (vDSO + anchor) | 21.7ns | 20ns | 1ns |",
		"| Subject | Via | G | IDs | Makespan ms median [min–max] | Ticks median / floor | IDs/s | p50 | p99 | p99.9 | Lead median | Check |",
		"| mutexgen/strict | NextID | 8 | 20,000 | 4.62 [4.51–4.98] | 5 / 5 | 4.33M/s | 210ns | 48µs | 640µs | -310µs | OK |",
		"| Subject | Via | CAS retries/ID | Tick waits/ID | Mutex wait/ID |",
		"| mutexgen/strict | NextID | 0 | 0.0009 | 1.18µs |",
		"| sony/sonyflake | NextID | 8 | 20,000 | 790 [786–795] | 80 / 79 |",
		"| google/uuid-v7 | NextID |", "FAIL: 37 order violations |",
		"| Subject | Ceiling (M/s) | G=1 (M/s) | G=2 (M/s) | G=4 (M/s) |",
		"| mutexgen/strict | 4.096 | 4.09 (99.9%) | 4.09 (99.8%) | 4.08 (99.6%) |",
		"| atomicgen/monotonic | 4.096 (not strict) | 48.2 | 31.5 | 22.8 |",
		"| google/uuid-v7 | — | 9.80 | 6.10 | 4.40 |",
		"| Subject | Target | Achieved | Duration | p50 | p99 | p99.9 | p99.99 | Max | Check |",
		"| atomicgen/strict | 1.00M/s | 1.00M/s | 5s | 110ns | 1.9µs | 48µs | 410µs | 1.2ms | OK |",
		"UUIDv7 \\| 128-bit", // a pipe in a cell is escaped
		"### Cost over the physical limit",
		"| Subject | Limit | G=1 | G=2 | G=4 |",
		"| atomicgen/monotonic | limit/clock+cas | 1.37× | 1.28× | 1.31× |",
		"| shardedgen/node-per-shard/strict | limit/per-p | 1.14× | 2.16× | 2.17× |",
		"![IDs/s against goroutines: strict generators](20260314T092653Z-lab-vm-3-6bc4800-dirty/saturate-strict.svg)",
		"![IDs/s against goroutines: far from the rest, on an axis of their own](20260314T092653Z-lab-vm-3-6bc4800-dirty/saturate-far.svg)",
		"![per-call latency percentiles of the bursts](20260314T092653Z-lab-vm-3-6bc4800-dirty/latency.svg)",
		"![burst makespans](20260314T092653Z-lab-vm-3-6bc4800-dirty/makespan.svg)",
	} {
		assert.Contains(t, md, want)
	}
	assert.Equal(t, 7, strings.Count(md, "**How to read this.**"), "summary, clock audit, burst, saturate, limits, steady, its latency both ways")
	assert.Less(t, strings.Index(md, "## Summary"), strings.Index(md, "## Host"), "the answer first")

	// Counters unavailable: no column, the reason said once under the table.
	burst := mdSection(md, "Burst")
	assert.NotContains(t, burst, "Counters/ID")
	assert.Equal(t, 1, strings.Count(burst, fixturePMU))
	assert.NotContains(t, mdSection(md, "Saturate"), "✗", "saturate checks all passed")

	// Every table is rectangular.
	var width int
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			width = 0
			continue
		}
		n := len(cells(line))
		if width == 0 {
			width = n
		}
		assert.Equal(t, width, n, "row %q", line)
	}
}

func TestWriteMarkdownCounters(t *testing.T) {
	run := fixture.Run()
	run.Burst[0].Events = result.Events{Source: "hardware",
		PerID: map[string]float64{"instructions": 981.4, "cycles": 412.25, "cache-misses": 0.031}}
	run.Burst[2].Events = result.Events{Source: "software", PerID: map[string]float64{"task-clock-ns": 97}}
	burst := mdSection(markdownOf(t, run), "Burst")
	assert.Contains(t, burst, "| Mutex wait/ID | Fairness | Counters/ID |")
	assert.Contains(t, burst, "| 1.18µs | 4% [0.92–1.1×] | cache-misses 0.031, cycles 412, instructions 981 |")
	assert.Contains(t, burst, "| 0 | 8.2% [0.84–1.2×] | task-clock-ns 97 (software) |")
	assert.Contains(t, burst, "Hardware counters for the rows marked —: "+fixturePMU)
}

func TestWriteMarkdownMinimal(t *testing.T) {
	md := markdownOf(t, &result.Run{})
	assert.Contains(t, md, "# snowlab lab run")
	assert.Contains(t, md, "**Date:** unknown")
	assert.Contains(t, md, "| Hypervisor | none detected (bare metal) |")
	for _, s := range []string{"## Burst", "## Saturate", "## Steady", "## Failures", "### Clock audit", "## Subjects"} {
		assert.NotContains(t, md, s, "no data, no section")
	}
	assert.Contains(t, md, "every correctness check passed")

	assert.Contains(t, markdownOf(t, nil), "No run.")
}

func TestWriteMarkdownSaturateFailure(t *testing.T) {
	run := fixture.Run()
	run.Saturate[0].Check.Duplicates = 2
	sat := mdSection(markdownOf(t, run), "Saturate")
	assert.Contains(t, sat, "4.09 (99.9%) ✗")
	assert.Contains(t, sat, "✗ marks a failed check")
}

// failAfter fails every write after the first n bytes.
type failAfter struct{ n int }

var errRptWrite = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errRptWrite
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	for _, n := range []int{0, 100, 2000} {
		assert.ErrorIs(t, writeMarkdown(&failAfter{n}, fixture.Run()), errRptWrite, "markdown after %d bytes", n)
		assert.ErrorIs(t, WriteTable(&failAfter{n}, fixture.Run()), errRptWrite, "table after %d bytes", n)
	}
}

func TestPrintTableGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, fixture.Run()))
	golden := filepath.Join("testdata", "table.golden")
	if *updateGolden {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./lab -run TestPrintTableGolden -update to create it")
	assert.Equal(t, string(want), buf.String())
}

// TestWriteTable: the terminal says what the report files say, from the
// same document: the summary with the host and its load, every workload's
// table, the unfair runs and the failures; not the host's details, the
// subjects or the notes on how to read a table.
func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, fixture.Run()))
	out := buf.String()
	assert.Contains(t, out, "Host: AMD EPYC 7B13 64-Core Processor · GOMAXPROCS 8")
	assert.Contains(t, out, "Commit: 6bc4800+dirty")
	assert.Contains(t, out, "FAIL: 37 order violations")
	assert.Contains(t, out, "UNFAIR: 1 run(s) served their goroutines unevenly")
	for _, title := range []string{"Summary", "Burst", "Saturate", "Cost over the physical limit", "Fairness", "Steady",
		"Corrected and uncorrected latency", "Failures"} {
		assert.Contains(t, out, "== "+title+" ==\n")
	}
	for _, title := range terminalLeaves {
		assert.NotContains(t, out, "== "+title+" ==")
	}
	assert.NotContains(t, out, "How to read this")
	for _, s := range fixture.Run().Steady {
		assert.Regexp(t, `(?m)^`+s.Subject+` +1\.00M/s`, out)
	}

	busy := fixture.Run()
	busy.Host.Load = &result.Load{CPUs: 2, Seconds: 10, Own: 0.2, Other: 0.7}
	buf.Reset()
	require.NoError(t, WriteTable(&buf, busy))
	assert.Contains(t, buf.String(), "Busy host: others took 70%")

	buf.Reset()
	require.NoError(t, WriteTable(&buf, &result.Run{}))
	assert.NotContains(t, buf.String(), "== Burst ==")
	assert.NotContains(t, buf.String(), "== Saturate ==")
	require.NoError(t, WriteTable(&buf, nil))
}

func TestCheckShort(t *testing.T) {
	assert.Equal(t, "OK", checkShort(result.Check{IDs: 10}))
	c := result.Check{Duplicates: 1, OrderViolations: 2, CeilingExceeded: true, MaxPerTickNode: 4100, Errors: 3,
		FirstError: "clock moved back"}
	assert.Equal(t, "FAIL: 1 duplicate, 2 order violations, ceiling exceeded (4100 in one tick on one node), "+
		"3 errors (first: clock moved back)", c.String())
	assert.Equal(t, "FAIL: 1 duplicate, 2 order violations, ceiling exceeded (4100 in one tick on one node), 3 errors",
		checkShort(c))
}

func TestCeilingPct(t *testing.T) {
	run := fixture.Run()
	assert.InDelta(t, 99.88, ceilingPct(run, result.SaturateResult{Subject: "mutexgen/strict", IDsPerSec: 4.091e6}), 0.01,
		"computed from the subject's ceiling when not recorded")
	assert.Equal(t, 42.0, ceilingPct(run, result.SaturateResult{Subject: "mutexgen/strict", CeilingPct: 42}))
	assert.Zero(t, ceilingPct(run, result.SaturateResult{Subject: "atomicgen/monotonic", IDsPerSec: 48e6, CeilingPct: 1177}),
		"not strict: no percentage")
	assert.Zero(t, ceilingPct(run, result.SaturateResult{Subject: "google/uuid-v7", IDsPerSec: 9e6}))
	assert.Equal(t, 50.0, ceilingPct(run, result.SaturateResult{Subject: "unknown", CeilingPct: 50}))
}

// TestLimitFinding: a subject faster than its limit in every repeat is a
// finding under the cost-over-limit table; one that beats it in only some
// repeats (the noise) is not.
func TestLimitFinding(t *testing.T) {
	run := fixture.Sweep(6)
	for i := range run.Saturate {
		s := &run.Saturate[i]
		if s.Subject != "atomicgen/monotonic" || s.Goroutines != 1 {
			continue
		}
		for k := range s.Samples {
			s.Samples[k] = 40e6 // its limit, limit/clock+cas, is 25e6
		}
	}
	sat := mdSection(markdownOf(t, run), "Saturate")
	assert.Contains(t, sat, "**Finding:** atomicgen/monotonic reads below limit/clock+cas at G=1 in every one of its 6 repeats")
	assert.Equal(t, 1, strings.Count(sat, "**Finding:**"), "only the planted one")

	run = fixture.Sweep(6)
	for i := range run.Saturate {
		if s := &run.Saturate[i]; s.Subject == "atomicgen/monotonic" && s.Goroutines == 1 {
			s.Samples[0] = 40e6 // one repeat fast: noise
		}
	}
	assert.NotContains(t, markdownOf(t, run), "**Finding:**")
}
