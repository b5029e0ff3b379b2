package service

import (
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/snowidd/client"
)

// TestDefaults: by default every protocol, batches of 1 to 10,000,
// one caller and 64, a one-core server and eight open-loop workers; the
// steady run's length follows -duration unless set.
func TestDefaults(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "snowidd")
	require.NoError(t, os.WriteFile(bin, nil, 0o755))
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	var f flags
	f.register(fs)
	require.NoError(t, fs.Parse([]string{"-snowidd", bin, "-duration", "250ms"}))
	o, err := f.Options()
	require.NoError(t, err)
	assert.Equal(t, client.Protocols(), o.protocols)
	assert.Equal(t, []int{1, 10, 100, 1000, 10000}, o.batches)
	assert.Equal(t, []int{1, 64}, o.sweep)
	assert.Equal(t, 1, o.ServerProcs)
	assert.Equal(t, o.duration, o.steadyDur)
	assert.Equal(t, 8, o.workers)

	unbatched, all, err := subjects(&remote.Replica{URL: "http://127.0.0.1:1"}, o)
	require.NoError(t, err)
	var names []string
	for _, s := range all {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"snowidd/grpc/NextID", "snowidd/grpc-web/NextID", "snowidd/connect+proto/NextID", "snowidd/connect+json/NextID",
		"snowidd/grpc/NextIDs(1)", "snowidd/grpc/NextIDs(10)", "snowidd/grpc/NextIDs(100)", "snowidd/grpc/NextIDs(1000)",
		"snowidd/grpc/NextIDs(10000)", "atomicgen/strict"}, names)
	assert.Len(t, unbatched, 4)
	for _, s := range all {
		// The server's CPU is read for what the server serves only.
		assert.Equal(t, s.Name != inProcessSubject, s.ServerCPU != nil, s.Name)
	}
	assert.Contains(t, all[0].Note, "GOMAXPROCS=1; open loop from 8 workers")
}

// TestSummary: the summary reads the sweep's maximum per subject,
// the one caller's rate and round trip at G=1, and the steady runs.
func TestSummary(t *testing.T) {
	o := options{protocols: []client.Protocol{client.GRPC}, batches: []int{10}, ServerProcs: 1}
	sat := func(name string, g int, v float64, p50 int64) result.SaturateResult {
		return result.SaturateResult{Subject: name, Goroutines: g, IDsPerSec: v, Latency: result.Latency{P50: p50}}
	}
	peak := sat("snowidd/grpc/NextID", 64, 9000, 0)
	peak.ServerPerCPUSec = 20_000
	run := &result.Run{
		Saturate: []result.SaturateResult{sat("snowidd/grpc/NextID", 1, 2000, 500_000), peak,
			sat("snowidd/grpc/NextIDs(10)", 1, 30_000, 0), sat("snowidd/grpc/NextIDs(10)", 64, 20_000, 0),
			sat("atomicgen/strict", 64, 4e6, 0)},
		Steady: []result.SteadyResult{{Subject: "snowidd/grpc/NextID", TargetRate: 4500, Achieved: 4499,
			Latency: result.Latency{P50: 200_000, P99: 900_000, P999: 2_000_000}, ServerCPUPerID: 70 * time.Microsecond}},
	}
	s := summarize(run, o)
	assert.Equal(t, []summaryRow{{"grpc", 9000, 20_000}}, s.unbatched)
	assert.Equal(t, []summaryRow{{"10", 30_000, 0}}, s.batches)
	assert.Equal(t, summaryRow{"atomicgen/strict", 4e6, 0}, s.inProcess)
	assert.InDelta(t, 2000, s.oneCaller, 0)
	assert.Equal(t, 500*time.Microsecond, s.roundTrip)

	var b strings.Builder
	writeSummary(&b, s)
	assert.Contains(t, b.String(), "one caller, grpc NextID: 2000 req/s; round trip (p50 of its sampled calls) 500µs, 1 / round trip = 2000/s")
	assert.Contains(t, b.String(), "p50 200µs  p99 900µs  p99.9 2ms")
	assert.Contains(t, b.String(), "9000 req/s   (20000 req/s per server core: 50µs of its CPU each)")
	assert.Contains(t, b.String(), "server CPU 70µs per call at this rate")
	for d, want := range map[time.Duration]time.Duration{33 * time.Nanosecond: 33 * time.Nanosecond, 1234 * time.Nanosecond: 1230 * time.Nanosecond,
		41_638 * time.Nanosecond: 41_600 * time.Nanosecond, 7 * time.Millisecond: 7 * time.Millisecond} {
		assert.Equal(t, want, threeFigures(d), d)
	}
	assert.NotContains(t, b.String(), "ceiling")

	s.o.Shards = 2
	b.Reset()
	writeSummary(&b, s)
	assert.Contains(t, b.String(), "GOMAXPROCS=1, 2 node ids (-shards 2)")
	assert.Contains(t, b.String(), "30000 IDs/s = 0.01× one node id's ceiling")
}

// TestInterrupt: Ctrl-C (the context cancelled) part way through the
// sweep stops the replica and ends Run with the context's error and no
// result, where the run would otherwise go on for the hour it was given.
func TestInterrupt(t *testing.T) {
	bin := os.Getenv("SNOWIDD_BIN")
	if out, err := exec.Command("go", "env", "GOWORK").Output(); bin == "" && err == nil && strings.TrimSpace(string(out)) != "" {
		bin = filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), "bin", "snowidd")
	}
	if remote.CheckBinary(bin) != nil {
		if os.Getenv("SNOWLAB_REQUIRE_SNOWIDD") == "1" {
			t.Fatalf("SNOWLAB_REQUIRE_SNOWIDD=1 but no snowidd at %q", bin)
		}
		t.Skip("no snowidd binary (make snowidd builds bin/snowidd)")
	}
	x := New()
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	x.Flags(fs)
	require.NoError(t, fs.Parse([]string{"-snowidd", bin, "-protocols", "grpc", "-batches", "10", "-sweep", "1",
		"-sat-repeats", "1", "-duration", workload.MaxDuration.String()}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var steps []string
	env := experiment.Env{Stdout: io.Discard, Stderr: io.Discard,
		BindCPUs: func(string) (func(), error) { return func() {}, nil },
		Bar: func() (func(int, int, string), func()) {
			return func(_, _ int, what string) { steps = append(steps, what); cancel() }, func() {}
		}}
	out, err := x.Run(ctx, env)
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, out)
	assert.Equal(t, []string{"saturate snowidd/grpc/NextID x1 (1/1)"}, steps[:1])
}
