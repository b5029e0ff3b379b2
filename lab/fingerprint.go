package lab

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"

	"github.com/aclements/go-perfevent/events"
	"github.com/aclements/go-perfevent/perf"
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/unix"

	"github.com/snowlab/snowlab/clocksrc"
)

// hostAuditReads is how many reads Host times per clock source: enough for
// a stable mean, few enough that Host stays well under a second even where
// clock_gettime is a real system call.
const hostAuditReads = 20_000

// clocksourcePath names the kernel's current clocksource.
const clocksourcePath = "/sys/devices/system/clocksource/clocksource0/current_clocksource"

// Host describes the machine the lab runs on: CPU and caches (from CPUID;
// sizes are 0 where undetected), Go runtime, kernel, the kernel's
// clocksource, a short audit of the clock sources, and whether hardware
// performance counters can be opened.
func Host() Fingerprint {
	c := cpuid.CPU
	f := Fingerprint{
		CPU:           c.BrandName,
		PhysicalCores: c.PhysicalCores,
		LogicalCores:  c.LogicalCores,
		CacheLine:     c.CacheLine,
		L1D:           max(c.Cache.L1D, 0),
		L2:            max(c.Cache.L2, 0),
		L3:            max(c.Cache.L3, 0),
		Hypervisor:    c.HypervisorVendorString,
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		GoVersion:     runtime.Version(),
		OS:            runtime.GOOS,
		Arch:          runtime.GOARCH,
	}
	if f.CPU == "" {
		f.CPU = c.VendorString
	}
	if f.CPU == "" {
		f.CPU = "unknown"
	}
	if f.LogicalCores <= 0 {
		f.LogicalCores = runtime.NumCPU()
	}
	if f.PhysicalCores <= 0 {
		f.PhysicalCores = max(f.LogicalCores/max(c.ThreadsPerCore, 1), 1)
	}
	if f.Hypervisor == "" && c.HypervisorVendorID != cpuid.VendorUnknown {
		f.Hypervisor = c.HypervisorVendorID.String()
	}
	if h, err := os.Hostname(); err == nil {
		f.Hostname = h
	}

	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		f.Kernel = "unknown: " + err.Error()
	} else {
		f.Kernel = unix.ByteSliceToString(u.Release[:])
	}

	if b, err := os.ReadFile(clocksourcePath); err != nil {
		f.Clocksource = "unknown: " + err.Error()
	} else if s := strings.TrimSpace(string(b)); s != "" {
		f.Clocksource = s
	} else {
		f.Clocksource = "unknown: empty " + clocksourcePath
	}

	for _, r := range clocksrc.Audit(hostAuditReads) {
		f.ClockAudit = append(f.ClockAudit, ClockReport{
			Name:             r.Name,
			NsPerRead:        r.NsPerRead,
			ResolutionNs:     r.Resolution.Nanoseconds(),
			KernelResolution: r.KernelResolution.Nanoseconds(),
		})
	}

	f.PMU = probePMU()
	return f
}

// probePMU says whether a hardware cycles counter opens on this thread:
// "hardware", "software only: <why hardware failed>", or
// "unavailable: <why>"; "(user-space)" follows "hardware" or "software
// only" where only user-space counting is permitted.
func probePMU() string {
	hwUser, hw := probeEvent(events.EventCPUCycles)
	if hw == nil {
		if hwUser {
			return "hardware (user-space)"
		}
		return "hardware"
	}
	swUser, sw := probeEvent(events.EventTaskClock)
	switch {
	case sw != nil:
		return fmt.Sprintf("unavailable: cycles: %v; task-clock: %v", hw, sw)
	case swUser:
		return "software only (user-space): cycles: " + hw.Error()
	}
	return "software only: cycles: " + hw.Error()
}

// probeEvent opens ev on this thread through go-perfevent. Where that is
// not permitted (go-perfevent counts kernel mode too, which
// perf_event_paranoid may forbid) it tries user-space only.
func probeEvent(ev events.Event) (userOnly bool, err error) {
	c, err := perf.OpenCounter(perf.TargetThisGoroutine, ev)
	if err == nil {
		if c == nil {
			return false, errors.New("no counter")
		}
		c.Close()
		return false, nil
	}
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		fd, err2 := openEvent(ev, unix.Gettid(), true)
		if err2 == nil {
			unix.Close(fd)
			return true, nil
		}
		if !errors.Is(err2, err) {
			return false, fmt.Errorf("%w; user-space only: %w", explain(err), explain(err2))
		}
	}
	return false, explain(err)
}

// Slug is a short, filesystem-safe name for the host, for result file
// names: the lowercased first label of the hostname (the whole name if it is
// an IP address), with every run of characters outside [a-z0-9-] turned
// into one '-', at most 32 characters, "host" if nothing is left.
func (f Fingerprint) Slug() string {
	h := strings.ToLower(strings.TrimSpace(f.Hostname))
	if net.ParseIP(h) == nil {
		if i := strings.IndexByte(h, '.'); i > 0 {
			h = h[:i]
		}
	}
	var b strings.Builder
	dash := false
	for _, r := range h {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 32 {
		s = strings.TrimRight(s[:32], "-")
	}
	if s == "" {
		return "host"
	}
	return s
}
