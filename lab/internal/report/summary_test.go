package report

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/result"
)

// summaryTable is the summary's table rows of run's Markdown report, cell
// by cell, keyed by generator.
func summaryTable(t *testing.T, run *result.Run) (rows map[string][]string, order []string, text string) {
	t.Helper()
	text = mdSection(markdownOf(t, run), "Summary")
	require.NotEmpty(t, text, "a summary section")
	rows = map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Generator ") {
			continue
		}
		c := cells(line)
		rows[c[0]] = c
		order = append(order, c[0])
	}
	return rows, order, text
}

func TestSummary(t *testing.T) {
	header := []string{"Generator", "Best IDs/s", "Of its ceiling", "Time per ID over its limit at that G",
		"× the fastest peer promising as much", "Checks"}
	for _, tc := range []struct {
		name   string
		change func(*result.Run)
		want   map[string][]string // generator -> its cells
		text   []string            // in the section
	}{
		{"the fixture", nil, map[string][]string{
			"mutexgen/strict": {"mutexgen/strict", "4.09M/s at G=1", "100% of 4.096M/s", "16.16× limit/clock+cas",
				"×1 bwmarrin/snowflake (4.09M/s)", "✓ 5 of 5 passed"},
			"atomicgen/strict": {"atomicgen/strict", "4.09M/s at G=1", "100% of 4.096M/s", "16.15× limit/clock+cas",
				"×1 bwmarrin/snowflake (4.09M/s)", "✓ 6 of 6 passed"},
			// google/uuid-v7 is faster but failed its check: no yardstick.
			"atomicgen/monotonic": {"atomicgen/monotonic", "48.2M/s at G=1", "not strict", "1.37× limit/clock+cas",
				"×5.5 oklog/ulid-monotonic (8.70M/s)", "✓ 5 of 5 passed"},
			"shardedgen/node-per-shard/strict": {"shardedgen/node-per-shard/strict", "32.7M/s at G=4", "100% of 32.77M/s",
				"2.17× limit/per-p", "×8 bwmarrin/snowflake (4.09M/s)", "✓ 5 of 5 passed"},
		}, []string{
			"**Result:** ✗ 1 correctness check(s) FAILED of 44, see [Failures](#failures): google/uuid-v7 (burst via NextID): FAIL: 37 order violations.",
			"**Fastest:** strict: shardedgen/node-per-shard/strict 32.7M/s at G=4 (100% of its ceiling) · " +
				"not strict: atomicgen/monotonic 48.2M/s at G=1 · of the peers: oklog/ulid-monotonic 8.70M/s at G=1.",
			"**Peers and physical limits:** ✗ 1 of 23 checks failed: google/uuid-v7 (burst via NextID): FAIL: 37 order violations; ✓ 22 passed.",
			"**Host:** AMD EPYC 7B13 64-Core Processor · GOMAXPROCS 8 · go1.26.8 · load not recorded",
		}},
		{"a generator's check failed", func(r *result.Run) {
			r.Failures = nil
			for i := range r.Burst {
				r.Burst[i].Check = result.Check{IDs: r.Burst[i].IDs}
			}
			for i := range r.Saturate {
				if s := &r.Saturate[i]; s.Subject == "atomicgen/strict" && s.Goroutines == 4 {
					s.Check.Duplicates = 2
				}
			}
		}, map[string][]string{
			"atomicgen/strict": {"atomicgen/strict", "4.09M/s at G=1", "100% of 4.096M/s", "16.15× limit/clock+cas",
				"×1 bwmarrin/snowflake (4.09M/s)", "✗ 1 of 6 failed: saturate G=4: FAIL: 2 duplicates; ✓ 5 passed"},
			// With its check passed, google/uuid-v7 is the fastest peer.
			"atomicgen/monotonic": {"atomicgen/monotonic", "48.2M/s at G=1", "not strict", "1.37× limit/clock+cas",
				"×4.9 google/uuid-v7 (9.80M/s)", "✓ 5 of 5 passed"},
		}, []string{
			"**Result:** ✗ 1 correctness check(s) FAILED of 44, see [Failures](#failures): atomicgen/strict (saturate G=4): FAIL: 2 duplicates.",
			"**Peers and physical limits:** ✓ all 23 checks passed.",
		}},
		{"a generator the sweep did not measure, and no peer", func(r *result.Run) {
			var sat []result.SaturateResult
			for _, s := range r.Saturate {
				if info, _ := subjectInfo(r, s.Subject); s.Subject != "mutexgen/strict" && !info.Peer {
					sat = append(sat, s)
				}
			}
			r.Saturate = sat
		}, map[string][]string{
			"mutexgen/strict":     {"mutexgen/strict", "not measured", "—", "—", "—", "✓ 2 of 2 passed"},
			"atomicgen/monotonic": {"atomicgen/monotonic", "48.2M/s at G=1", "not strict", "1.37× limit/clock+cas", "—", "✓ 5 of 5 passed"},
		}, nil},
		{"a busy host", func(r *result.Run) {
			r.Host.Load = &host.Load{CPUs: 8, Seconds: 221, Own: 0.55, Other: 0.38, Steal: 0.02,
				Start: host.LoadAvg{One: 6.1}, End: host.LoadAvg{One: 9.4}}
		}, nil, []string{
			"· load: other processes 38% · steal 2% · this run 55% of 8 CPUs over 221s · load average 6.10 at start, 9.40 at end. " +
				"**Busy host:** others took 40% of the CPU time",
		}},
		{"a quiet host", func(r *result.Run) {
			r.Host.Load = &host.Load{CPUs: 8, Seconds: 221, Own: 0.9, Other: 0.02}
		}, nil, []string{"· load: other processes 2% · steal 0% · this run 90% of 8 CPUs over 221s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := fixture.Run()
			if tc.change != nil {
				tc.change(run)
			}
			rows, order, text := summaryTable(t, run)
			assert.Contains(t, text, "| "+strings.Join(header, " | ")+" |")
			// Every generator, in the run's order; no peer, no limit.
			var gens []string
			for _, s := range run.Subjects {
				if !s.Peer && !s.Physical {
					gens = append(gens, s.Name)
				}
			}
			assert.Equal(t, gens, order)
			for name, want := range tc.want {
				assert.Equal(t, want, rows[name], name)
			}
			for _, s := range tc.text {
				assert.Contains(t, text, s)
			}
			if !strings.Contains(tc.name, "busy") {
				assert.NotContains(t, text, "Busy host")
			}
		})
	}
}

// TestSummaryEveryCheck: the summary accounts for every check the run
// made, generators' and peers' alike.
func TestSummaryEveryCheck(t *testing.T) {
	run := fixture.Run()
	n := len(run.Burst) + len(run.Saturate) + len(run.Steady)
	rows := summarize(run)
	inRows := 0
	for _, r := range rows {
		inRows += len(r.Checks)
	}
	_, _, text := summaryTable(t, run)
	assert.Contains(t, text, "of 44,")
	assert.Equal(t, 44, n)
	assert.Contains(t, text, "of "+strconv.Itoa(n-inRows)+" checks failed", "the rest are the peers' and limits'")
}
