package host

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProbe(t *testing.T) {
	f := Probe()
	t.Logf("Probe(): %+v", f)
	assert.NotContains(t, []string{"", "unknown"}, f.CPU, "want a CPU brand")
	assert.GreaterOrEqual(t, f.PhysicalCores, 1)
	assert.GreaterOrEqual(t, f.LogicalCores, f.PhysicalCores)
	assert.GreaterOrEqual(t, f.GOMAXPROCS, 1)
	assert.True(t, strings.HasPrefix(f.GoVersion, "go"), "GoVersion = %q", f.GoVersion)
	assert.NotEmpty(t, f.OS)
	assert.NotEmpty(t, f.Arch)
	assert.False(t, f.Kernel == "" || strings.HasPrefix(f.Kernel, "unknown"), "Kernel = %q", f.Kernel)
	assert.False(t, f.Clocksource == "" || strings.HasPrefix(f.Clocksource, "unknown"), "Clocksource = %q", f.Clocksource)
	require.Len(t, f.ClockAudit, 5)
	for _, r := range f.ClockAudit {
		assert.True(t, r.Name != "" && r.NsPerRead > 0 && r.ResolutionNs > 0, "clock report %+v: want a name, positive cost and resolution", r)
	}
	assert.Empty(t, f.PMU, "PMU is the event counter's to fill")
	assert.True(t, f.CacheLine >= 0 && f.L1D >= 0 && f.L2 >= 0 && f.L3 >= 0, "negative cache figures: %+v", f)
}

func TestParseCPUListCounts(t *testing.T) {
	tests := []struct {
		list string
		n    int
		ok   bool
	}{
		{"0", 1, true},
		{"0-1", 2, true},
		{"0-3,6,8-9", 7, true},
		{"", 0, false},
		{"0-", 0, false},
		{"3-1", 0, false},
		{"a", 0, false},
		{"-1", 0, false},
	}
	for _, tt := range tests {
		cpus, err := ParseCPUList(tt.list)
		assert.Equal(t, tt.ok, err == nil, "%q", tt.list)
		assert.Equal(t, tt.n, len(cpus), "%q", tt.list)
	}
}

func TestProbeCountsTheCPUsTheOSRuns(t *testing.T) {
	f := Probe()
	assert.LessOrEqual(t, f.LogicalCores, onlineCPUs(), "no more cores than the OS has online")
}
