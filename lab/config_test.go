package lab

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/workload"
)

// TestConfigDocsGiveTheDefaults: the public configurations' comments give
// each default as a figure (the constants are internal, so go doc cannot
// show them); they must be the internal constants' values.
func TestConfigDocsGiveTheDefaults(t *testing.T) {
	src, err := os.ReadFile("config.go")
	require.NoError(t, err)
	for _, want := range configDefaultsDoc() {
		assert.Contains(t, string(src), want)
	}
}

// configDefaultsDoc is what config.go must say of each default.
func configDefaultsDoc() []string {
	return []string{
		"IDs per burst; 0 is " + thousands(workload.DefaultBurstIDs),
		"0 is " + thousands(workload.DefaultBurstGoroutines) + " (never more than IDs)",
		"Repeats    int           // 0 is " + thousands(workload.DefaultBurstRepeats),
		"between repeats; 0 is " + workload.DefaultBurstPause.String(),
		"mints in this long (0 is\n\t// " + workload.DefaultCeilingBudget.String(),
		"per repeat; 0 is " + workload.DefaultSaturateDuration.String(),
		"Repeats    int           // 0 is " + thousands(workload.DefaultSaturateRepeats),
		"0 is " + thousands(workload.DefaultSaturateMaxIDs>>20) + "Mi",
		"reads of timing do not halve the throughput being measured. 0 is\n\t// " + thousands(workload.DefaultSampleEvery),
		"calls per second; 0 is " + thousands(int(workload.DefaultSteadyRate)),
		"Duration time.Duration // 0 is " + workload.DefaultSteadyDuration.String(),
		"serves in this long (0 is " + workload.DefaultCeilingBudget.String(),
		"more than " + words[workload.MaxSteadyCalls],
	}
}

// words spells the bounds the comments spell out.
var words = map[int]string{20_000_000: "twenty million"}

// thousands writes n with comma separators, as the comments do.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
