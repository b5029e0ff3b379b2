package host

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProbe(t *testing.T) {
	// How long Probe takes is not checked: a loaded machine stretches its
	// 100,000 clock reads (some of them system calls) past any bound
	// that would catch a slow Probe. auditReads is what keeps it short.
	start := time.Now()
	f := Probe()
	t.Logf("Probe() took %v: %+v", time.Since(start), f)
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

func TestString(t *testing.T) {
	for _, tc := range []struct {
		f    Fingerprint
		want string
	}{
		{Fingerprint{}, "unknown CPU · GOMAXPROCS 0"},
		{Fingerprint{Hostname: "bench01", CPU: "AMD EPYC", Hypervisor: "KVM", GOMAXPROCS: 2, GoVersion: "go1.26.0"},
			"AMD EPYC · GOMAXPROCS 2 · go1.26.0"},
		{Fingerprint{Hostname: "bench01", GOMAXPROCS: 8}, "bench01 · GOMAXPROCS 8"},
	} {
		assert.Equal(t, tc.want, tc.f.String())
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"", "host"},
		{"   ", "host"},
		{"bench01", "bench01"},
		{"Bench-01", "bench-01"},
		{"ip-10-0-0-5.ec2.internal", "ip-10-0-0-5"},
		{"My_Host Name", "my-host-name"},
		{"a..b", "a"},
		{"--weird__host--", "weird-host"},
		{"10.0.0.5", "10-0-0-5"},
		{"::1", "1"},
		{"../../etc/passwd", "etc-passwd"},
		{"héllo/wörld", "h-llo-w-rld"},
		{"___", "host"},
		{"abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz012345"},
		{"abcdefghijklmnopqrstuvwxyz01234_6789", "abcdefghijklmnopqrstuvwxyz01234"},
	} {
		got := Fingerprint{Hostname: tc.host}.Slug()
		assert.Equal(t, tc.want, got, "Slug(%q)", tc.host)
		assert.LessOrEqual(t, len(got), 32)
		assert.Empty(t, strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789-"), "Slug(%q) = %q is not [a-z0-9-]{1,32}", tc.host, got)
	}
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
