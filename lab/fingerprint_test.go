package lab

import (
	"strings"
	"testing"
	"time"
)

func TestHostFingerprint(t *testing.T) {
	start := time.Now()
	f := Host()
	took := time.Since(start)
	t.Logf("Host() took %v: %+v", took, f)
	if took > time.Second {
		t.Errorf("Host() took %v, want well under a second", took)
	}
	if f.CPU == "" || f.CPU == "unknown" {
		t.Errorf("CPU = %q, want a brand", f.CPU)
	}
	if f.PhysicalCores < 1 || f.LogicalCores < 1 {
		t.Errorf("cores = %d physical, %d logical; want >= 1", f.PhysicalCores, f.LogicalCores)
	}
	if f.PhysicalCores > f.LogicalCores {
		t.Errorf("physical cores %d > logical %d", f.PhysicalCores, f.LogicalCores)
	}
	if f.GOMAXPROCS < 1 {
		t.Errorf("GOMAXPROCS = %d", f.GOMAXPROCS)
	}
	if !strings.HasPrefix(f.GoVersion, "go") {
		t.Errorf("GoVersion = %q", f.GoVersion)
	}
	if f.OS == "" || f.Arch == "" {
		t.Errorf("OS/Arch = %q/%q", f.OS, f.Arch)
	}
	if f.Kernel == "" || strings.HasPrefix(f.Kernel, "unknown") {
		t.Errorf("Kernel = %q", f.Kernel)
	}
	if f.Clocksource == "" || strings.HasPrefix(f.Clocksource, "unknown") {
		t.Errorf("Clocksource = %q", f.Clocksource)
	}
	if len(f.ClockAudit) != 5 {
		t.Fatalf("ClockAudit has %d entries, want 5", len(f.ClockAudit))
	}
	for _, r := range f.ClockAudit {
		if r.Name == "" || r.NsPerRead <= 0 || r.ResolutionNs <= 0 {
			t.Errorf("clock report %+v: want a name, positive cost and resolution", r)
		}
	}
	if !(f.PMU == "hardware" || strings.HasPrefix(f.PMU, "hardware (") || strings.HasPrefix(f.PMU, "software only") || strings.HasPrefix(f.PMU, "unavailable: ")) {
		t.Errorf("PMU = %q", f.PMU)
	}
	if f.CacheLine < 0 || f.L1D < 0 || f.L2 < 0 || f.L3 < 0 {
		t.Errorf("negative cache figures: %+v", f)
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
		if got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.host, got, tc.want)
		}
		if len(got) > 32 || strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			t.Errorf("Slug(%q) = %q is not [a-z0-9-]{1,32}", tc.host, got)
		}
	}
}
