package alternatives

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

func testHost() *result.Host {
	return &result.Host{Hostname: "test-host", CPU: "test cpu", GOMAXPROCS: 2, GoVersion: "go-test"}
}

func point(clients int, rate float64, window time.Duration, keptUp bool) sweepPoint {
	return sweepPoint{Clients: clients, IDs: int64(rate), IDsPerSec: rate, Demand: docPeak, KeptUp: keptUp,
		Disorder: disorder{IDs: int64(rate), Window: window}, PerID: latency{Count: int64(rate), Max: 200 * time.Microsecond}}
}

// tripPoint is a point whose every ID waited for one round trip of trip.
func tripPoint(clients int, rate float64, trip, window time.Duration) sweepPoint {
	p := point(clients, rate, window, false)
	p.Trip = latency{Count: p.IDs, P50: trip, P99: 2 * trip, Max: 4 * trip}
	p.PerID = p.Trip
	return p
}

// syntheticRun is a run whose figures are made up for the test: a row at
// rowRate against a flush of commit, blocks of 24 that fall short and of
// 1,000 that keep up, a stride, snowlab, nextval at 200 µs a round trip,
// and snowidd at 100 µs a round trip (unbatched) and in batches of 1,000,
// bare and bounded to 10 ms.
func syntheticRun(rowRate float64, commit time.Duration, snowWindow time.Duration) *runResult {
	return &runResult{Header: result.Header{Schema: schemaVersion, Experiment: experimentName, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Commit: "abc1234", Host: *testHost()},
		Config: config{Clients: []int{1, 8}, Duration: time.Second, Demand: docPeak, Skew: 5 * time.Millisecond, PrefetchShare: prefetchShare},
		Server: server{Version: "15.0", Settings: map[string]string{"fsync": "on", "synchronous_commit": "on", "wal_sync_method": "fdatasync"}},
		CommitLatency: commitTiming{Command: "pg_test_fsync -s 1", Method: "fdatasync", PerOp: commit,
			OpsPerSec: float64(time.Second) / float64(commit), Methods: []syncMethod{{"fdatasync", float64(time.Second) / float64(commit)}, {"fsync_writethrough", 0}}},
		Schemes: []schemeResult{
			{Scheme: schemeSpec{Kind: ticket}, Name: "ticket", Points: []sweepPoint{point(1, rowRate/2, 0, false), point(8, rowRate, time.Millisecond, false)}},
			{Scheme: schemeSpec{Kind: block, Size: 24}, Name: "block/24", Points: []sweepPoint{point(8, 24*rowRate, 2*time.Millisecond, false)}},
			{Scheme: schemeSpec{Kind: block, Size: 1000}, Name: "block/1000", Points: []sweepPoint{point(8, docPeak, 300*time.Millisecond, true)}},
			{Scheme: schemeSpec{Kind: block, Size: 100_000}, Name: "block/100000", Points: []sweepPoint{point(8, docPeak, 950*time.Millisecond, true)}},
			{Scheme: schemeSpec{Kind: stride}, Name: "stride", Points: []sweepPoint{point(8, 20_000, 200*time.Millisecond, false)}},
			{Scheme: schemeSpec{Kind: snowlabScheme}, Name: "snowlab", Points: []sweepPoint{point(1, docPeak, 0, true), point(8, docPeak, snowWindow, true)}},
			{Scheme: schemeSpec{Kind: sequence, Size: 1}, Name: "sequence/cache-1", Points: []sweepPoint{tripPoint(1, 4500, 200*time.Microsecond, 0)}},
			{Scheme: schemeSpec{Kind: snowidd}, Name: "snowidd", Points: []sweepPoint{tripPoint(1, 9000, 100*time.Microsecond, 0),
				tripPoint(8, 40_000, 100*time.Microsecond, 300*time.Microsecond)}},
			{Scheme: schemeSpec{Kind: snowidd, Size: 1000}, Name: "snowidd/1000", Points: []sweepPoint{point(8, docPeak, 80*time.Millisecond, true)}},
			{Scheme: schemeSpec{Kind: snowidd, Size: 1000, MaxAge: 10 * time.Millisecond}, Name: "snowidd/1000@10ms",
				Points: []sweepPoint{point(8, 90_000, 10100*time.Microsecond, false)}},
		},
		Crash: crashRun{Clients: 4, HandedOut: 1000, MaxBefore: 1000, RowAfter: 960, Reissued: 40},
	}
}

func outcomes(vs []verdict) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Outcome)
	}
	return out
}

func TestVerdicts(t *testing.T) {
	// The documents' world: a 240 µs flush, a row at 4,000/s.
	run := syntheticRun(4000, 240*time.Microsecond, 9*time.Millisecond)
	f := find(run)
	assert.Equal(t, 8, f.Row.Clients, "the row's best point")
	assert.Equal(t, 25, f.ForcedBlock)
	assert.InDelta(t, 0.96, f.RowOverCeiling, 0.001)
	vs := verdicts(f, run.Crash)
	assert.Equal(t, []string{holds, holds, holds, holds, holds, holds, doesNot, holds, holds, holds}, outcomes(vs))
	assert.Contains(t, vs[3].Why, "block/100000 by 950ms (≥: the run's length)")
	assert.Contains(t, vs[3].Why, "did not keep up", "block/24 fell short of the demand")
	assert.Contains(t, vs[6].Why, "issued 40 of those IDs a second time")
	assert.Equal(t, "1 client: 9.00k/s; round trip p50 100µs, so 1 / round trip = 10.0k/s", vs[7].Measured)
	assert.Contains(t, vs[7].Why, "0.9× the 10.0k/s its median round trip (100µs) allows")
	assert.Contains(t, vs[7].Why, "0.2× the documents' 0.5 ms")
	assert.Contains(t, vs[7].Why, "took 200µs at the median (4.50k/s): the service's hop costs 0.5× a database round trip")
	assert.Contains(t, vs[8].Why, "snowidd/1000 delivered up to 100k/s (2.5× NextID's best) and reordered by 80ms")
	assert.Contains(t, vs[8].Why, "at most 300µs, within the longest call (400µs)")
	assert.NotContains(t, vs[8].Why, "@", "the age-bounded batch has a claim of its own")
	assert.Equal(t, "snowidd/1000@10ms: 90.0k/s, window 10.1ms", vs[9].Measured)
	assert.Contains(t, vs[9].Why, "snowidd/1000@10ms reordered IDs by at most 10.1ms (8 clients), within its bound of 10ms plus the longest wait for an ID (200µs)")

	// A slow disk: 2 ms per flush, the row at 450/s. The ceiling holds,
	// the documents' figures do not; snowlab beyond its bound does not.
	run = syntheticRun(450, 2*time.Millisecond, 30*time.Millisecond)
	f = find(run)
	assert.Equal(t, 223, f.ForcedBlock, "100,000 / 450, rounded up")
	vs = verdicts(f, run.Crash)
	assert.Equal(t, []string{holds, doesNot, doesNot, holds, holds, doesNot, doesNot, holds, holds, holds}, outcomes(vs))
	assert.Contains(t, vs[1].Why, "0.11×")
	assert.Contains(t, vs[2].Why, "at least 223")

	// snowlab's window may pass the skew bound by the longest call (the
	// hand-out is timed when NextID returns), and no more.
	assert.Equal(t, holds, verdicts(find(syntheticRun(450, 2*time.Millisecond, 11200*time.Microsecond)), run.Crash)[5].Outcome)
	assert.Equal(t, doesNot, verdicts(find(syntheticRun(450, 2*time.Millisecond, 11300*time.Microsecond)), run.Crash)[5].Outcome)

	// One caller beyond 1 / round trip, a batch within the skew bound and
	// unbatched IDs reordered beyond the longest call: none holds.
	run = syntheticRun(4000, 240*time.Microsecond, time.Millisecond)
	sv := run.Schemes[len(run.Schemes)-3:]
	sv[0].Points[0].IDsPerSec = 16_000
	sv[0].Points[1].Disorder.Window = 500 * time.Microsecond
	sv[1].Points[0].Disorder.Window = 5 * time.Millisecond
	sv[2].Points[0].Disorder.Window = 10201 * time.Microsecond // 1 µs past the bound and the longest wait
	vs = verdicts(find(run), run.Crash)
	assert.Equal(t, []string{doesNot, doesNot, doesNot}, outcomes(vs[7:]))
	assert.Contains(t, vs[9].Why, "beyond its bound of 10ms")
	assert.Contains(t, vs[7].Why, "1.6× the 10.0k/s")
	assert.Contains(t, vs[8].Why, "Not every batch size")
	assert.Contains(t, vs[8].Why, "beyond the longest call (400µs)")

	// Without a replica the snowidd schemes are skipped, and both verdicts
	// say why.
	run = syntheticRun(4000, 240*time.Microsecond, time.Millisecond)
	for i := len(run.Schemes) - 3; i < len(run.Schemes); i++ {
		run.Schemes[i].Points, run.Schemes[i].Skipped = nil, noReplica
	}
	vs = verdicts(find(run), run.Crash)
	for _, v := range vs[7:] {
		assert.Equal(t, notMeasured, v.Outcome, v.Claim)
		assert.Contains(t, v.Why, "skipped: no snowidd replica", v.Claim)
	}

	// A row far above its flush: not each commit waits for one.
	vs = verdicts(find(syntheticRun(5000, 2*time.Millisecond, time.Millisecond)), run.Crash)
	assert.Equal(t, doesNot, vs[0].Outcome)

	// Nothing measured: every verdict says so rather than guess.
	empty := &runResult{Config: config{Skew: defaultSkew, Duration: time.Second, Demand: docPeak},
		CommitLatency: commitTiming{NotMeasured: "not measured: the server is not on this machine"}, Crash: crashRun{Skipped: "remote"}}
	for _, v := range verdicts(find(empty), empty.Crash) {
		assert.Equal(t, notMeasured, v.Outcome, v.Claim)
		assert.NotEmpty(t, v.Why, v.Claim)
	}
	run = syntheticRun(450, 2*time.Millisecond, time.Millisecond)
	run.CommitLatency = commitTiming{NotMeasured: "not measured: the server is not on this machine"}
	vs = verdicts(find(run), run.Crash)
	assert.Equal(t, notMeasured, vs[0].Outcome)
	assert.Contains(t, vs[0].Why, "the server is not on this machine")
}

func TestWriteFiles(t *testing.T) {
	run := syntheticRun(450, 2*time.Millisecond, 9*time.Millisecond)
	run.Command = []string{"loadgen", "alternatives", "-pg", "postgres://me:S3cretPass@127.0.0.1:1/db"}
	dir := t.TempDir()
	paths, err := writeFiles(dir, run)
	require.NoError(t, err)
	stem := filepath.Join(dir, resultdir.ExperimentStem(&run.Header))
	assert.True(t, strings.HasSuffix(stem, "-test-host-abc1234-alternatives"), stem)
	assert.Equal(t, []string{stem + ".json", stem + ".md", filepath.Join(stem, chartRate), filepath.Join(stem, chartWindow), stem + ".html"}, paths)
	back, err := readResult(stem + ".json")
	require.NoError(t, err)
	assert.Equal(t, run.Config, back.Config)
	assert.Equal(t, run.Schemes, back.Schemes)
	mdText, err := os.ReadFile(stem + ".md")
	require.NoError(t, err)
	for _, want := range []string{"## Predicted and measured", "One row does about 4,000 IDs/s",
		"does not hold", "## Schemes", "## Commit latency", "## Crash", "## Server", "## Host", "## How to read this",
		"adjacent pairs inverted", chartRate} {
		assert.Contains(t, string(mdText), want)
	}
	page, err := os.ReadFile(stem + ".html")
	require.NoError(t, err)
	for _, want := range []string{"<h2>Predicted and measured</h2>", "<h2>Schemes</h2>", "<h2>Commit latency</h2>",
		"<h2>Server</h2>", "<h2>Host</h2>", "<h2>How to read this</h2>", "<em>adjacent pairs inverted</em>",
		"<figcaption>Inversion window per scheme</figcaption>"} {
		assert.Contains(t, string(page), want)
	}
	assert.Equal(t, 2, strings.Count(string(page), "<svg "), "both charts inline")
	assert.NotContains(t, string(page), "<script")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.NotContains(t, string(data), "S3cretPass", p)
	}
	for _, p := range paths[2:4] {
		svg, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Contains(t, string(svg), "<svg")
	}
	_, err = readResult(filepath.Join(dir, "missing.json"))
	assert.Error(t, err)
}
