package report

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
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
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Capped generator ") || strings.HasPrefix(line, "| Uncapped generator ") {
			continue
		}
		c := cells(line)
		rows[c[0]] = c
		order = append(order, c[0])
	}
	return rows, order, text
}

// summaryCase is a change to the fixture and what its summary must show.
type summaryCase struct {
	name   string
	change func(*result.Run)
	want   map[string][]string // generator -> its cells
	text   []string            // in the section
}

const bw = "×1 bwmarrin/snowflake (4.09M/s per node, ceiling 4.096M/s per node)"

func TestSummary(t *testing.T) {
	checkSummaries(t, []summaryCase{
		{"the fixture", nil, map[string][]string{
			"mutexgen/strict": {"mutexgen/strict", "4.09M/s at G=1", "100% of 4.096M/s", "16.16× limit/clock+cas",
				bw, "19% (saturate G=4)", "✓ 5 of 5 passed"},
			"atomicgen/strict": {"atomicgen/strict", "4.09M/s at G=1", "100% of 4.096M/s", "16.15× limit/clock+cas",
				bw, "19% (saturate G=4)", "✓ 6 of 6 passed"},
			// google/uuid-v7 is faster but failed its check: no yardstick.
			"atomicgen/monotonic": {"atomicgen/monotonic", "48.2M/s at G=1", "1.37× limit/clock+cas",
				"×5.5 oklog/ulid-monotonic (8.70M/s)", "60% UNFAIR (saturate G=4)", "✓ 5 of 5 passed"},
			// Eight nodes against bwmarrin's one: per node, as fast.
			"shardedgen/node-per-shard/strict": {"shardedgen/node-per-shard/strict", "32.7M/s at G=4", "100% of 32.77M/s",
				"2.17× limit/per-p", bw, "19% (saturate G=4)", "✓ 5 of 5 passed"},
		}, []string{
			"**Result:** ✗ 1 correctness check(s) FAILED of 44, see [Failures](#failures): google/uuid-v7 (burst via NextID): FAIL: 37 order violations.",
			"**Fastest:** strict: shardedgen/node-per-shard/strict 32.7M/s at G=4 (100% of its ceiling) · " +
				"not strict: atomicgen/monotonic 48.2M/s at G=1 · of the capped peers: bwmarrin/snowflake 4.09M/s at G=1 · " +
				"of the uncapped peers: oklog/ulid-monotonic 8.70M/s at G=1.",
			cappedLead, uncappedLead,
			"**UNFAIR:** 1 run(s) served their goroutines unevenly (the Fairness columns below): " +
				"atomicgen/monotonic (saturate G=4: deviation 60%, least share 0.15× a fair one).",
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
				bw, "19% (saturate G=4)", "✗ 1 of 6 failed: saturate G=4: FAIL: 2 duplicates; ✓ 5 passed"},
			// With its check passed, google/uuid-v7 is the fastest peer.
			"atomicgen/monotonic": {"atomicgen/monotonic", "48.2M/s at G=1", "1.37× limit/clock+cas",
				"×4.9 google/uuid-v7 (9.80M/s)", "60% UNFAIR (saturate G=4)", "✓ 5 of 5 passed"},
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
			"mutexgen/strict":     {"mutexgen/strict", "not measured", "—", "—", "—", "4% (burst via NextID)", "✓ 2 of 2 passed"},
			"atomicgen/monotonic": {"atomicgen/monotonic", "48.2M/s at G=1", "1.37× limit/clock+cas", "—", "60% UNFAIR (saturate G=4)", "✓ 5 of 5 passed"},
		}, nil},
		{"a busy host", func(r *result.Run) {
			r.Host.Load = &result.Load{CPUs: 8, Seconds: 221, Own: 0.55, Other: 0.38, Steal: 0.02,
				Start: result.LoadAvg{One: 6.1}, End: result.LoadAvg{One: 9.4}}
		}, nil, []string{
			"· load: other processes 38% · steal 2% · this run 55% of 8 CPUs over 221s · load average 6.10 at start, 9.40 at end. " +
				"**Busy host:** others took 40% of the CPU time",
		}},
		{"a quiet host", func(r *result.Run) {
			r.Host.Load = &result.Load{CPUs: 8, Seconds: 221, Own: 0.9, Other: 0.02}
		}, nil, []string{"· load: other processes 2% · steal 0% · this run 90% of 8 CPUs over 221s"}},
	})
}

// TestSummaryComparesLikeWithLike: a capped generator meets capped peers
// only, an uncapped one uncapped peers that promise at least as much.
func TestSummaryComparesLikeWithLike(t *testing.T) {
	checkSummaries(t, []summaryCase{
		// oklog/ulid-monotonic is strict (it never borrows a millisecond)
		// but has no ceiling: the old summary set the strict generators,
		// at their 4.096M/s ceiling, against its 8.7M/s ("×0.47"). A
		// capped generator meets capped peers only; an uncapped one may
		// meet ulid, which promises more than it.
		{"a strict peer without a ceiling", func(r *result.Run) {
			for i := range r.Subjects {
				if r.Subjects[i].Name == "oklog/ulid-monotonic" {
					r.Subjects[i].Strict = true
				}
			}
		}, map[string][]string{
			"atomicgen/strict": {"atomicgen/strict", "4.09M/s at G=1", "100% of 4.096M/s", "16.15× limit/clock+cas",
				bw, "19% (saturate G=4)", "✓ 6 of 6 passed"},
			"atomicgen/monotonic": {"atomicgen/monotonic", "48.2M/s at G=1", "1.37× limit/clock+cas",
				"×5.5 oklog/ulid-monotonic (8.70M/s)", "60% UNFAIR (saturate G=4)", "✓ 5 of 5 passed"},
		}, nil},
		// A peer promising a weaker order than the generator is no
		// yardstick where both files record the order.
		{"a peer promising less order", func(r *result.Run) {
			for i := range r.Subjects {
				switch s := &r.Subjects[i]; s.Name {
				case "bwmarrin/snowflake":
					s.Order = "none"
				case "mutexgen/strict":
					s.Order = "caller"
				}
			}
		}, map[string][]string{
			"mutexgen/strict": {"mutexgen/strict", "4.09M/s at G=1", "100% of 4.096M/s", "16.16× limit/clock+cas",
				"×160 sony/sonyflake (25.5k/s per node, ceiling 25.6k/s per node)", "19% (saturate G=4)", "✓ 5 of 5 passed"},
			"atomicgen/strict": {"atomicgen/strict", "4.09M/s at G=1", "100% of 4.096M/s", "16.15× limit/clock+cas",
				bw, "19% (saturate G=4)", "✓ 6 of 6 passed"},
		}, nil},
	})
}

// checkSummaries renders each case's summary and checks its tables: both
// headers, every generator (the capped ones first, each table in the
// run's order; no peer, no limit), the rows and texts it names.
func checkSummaries(t *testing.T, cases []summaryCase) {
	cappedHeader := []string{"Capped generator", "Best IDs/s", "Of its ceiling", "Time per ID over its limit at that G",
		"× the fastest capped peer, per node", "Fairness, worst judged", "Checks"}
	uncappedHeader := []string{"Uncapped generator", "Best IDs/s", "Time per ID over its limit at that G",
		"× the fastest uncapped peer promising as much", "Fairness, worst judged", "Checks"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := fixture.Run()
			if tc.change != nil {
				tc.change(run)
			}
			rows, order, text := summaryTable(t, run)
			assert.Contains(t, text, "| "+strings.Join(cappedHeader, " | ")+" |")
			assert.Contains(t, text, "| "+strings.Join(uncappedHeader, " | ")+" |")
			// Every generator, the capped ones first, each table in the
			// run's order; no peer, no limit.
			var gens, uncapped []string
			for _, s := range run.Subjects {
				switch {
				case s.Peer || s.Physical:
				case s.Capped():
					gens = append(gens, s.Name)
				default:
					uncapped = append(uncapped, s.Name)
				}
			}
			assert.Equal(t, append(gens, uncapped...), order)
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
