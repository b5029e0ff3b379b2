package result_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/result"
)

func TestHypervisorName(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"KVMKVMKVM\x00\x00\x00", "KVM"},
		{"KVMKVMKVM", "KVM"}, // as older labs recorded it
		{"bhyve bhyve ", "bhyve"},
		{"VMwareVMware", "VMware"},
		{"XenVMMXenVMM", "XenVMM"},
		{"TCGTCGTCGTCG", "TCG"},
		{"Microsoft Hv", "Microsoft Hv"},
		{" lrpepyh  vr", "lrpepyh  vr"},
		{"ACRNACRNACRN", "ACRN"},
		{"abcab", "abcab"}, // a repeat cut short is not a repeat
		{"KVM", "KVM"},
		{"\x00\x00\x00\x00", ""},
		{"", ""},
	} {
		assert.Equal(t, tc.want, result.Host{Hypervisor: tc.raw}.HypervisorName(), "%q", tc.raw)
	}
}

func TestHostString(t *testing.T) {
	for _, tc := range []struct {
		h    result.Host
		want string
	}{
		{result.Host{}, "unknown CPU · GOMAXPROCS 0"},
		{result.Host{Hostname: "bench01", CPU: "AMD EPYC", Hypervisor: "KVM", GOMAXPROCS: 2, GoVersion: "go1.26.0"},
			"AMD EPYC · GOMAXPROCS 2 · go1.26.0"},
		{result.Host{Hostname: "bench01", GOMAXPROCS: 8}, "bench01 · GOMAXPROCS 8"},
	} {
		assert.Equal(t, tc.want, tc.h.String())
	}
}

func TestLoadString(t *testing.T) {
	for _, tc := range []struct {
		l *result.Load
		s string
	}{
		{nil, "load not recorded"},
		{&result.Load{Unknown: "unknown: no /proc to read on darwin"}, "load unknown: no /proc to read on darwin"},
		{&result.Load{CPUs: 2, Seconds: 72, Own: 0.96, Other: 0.003, Start: result.LoadAvg{One: 0.12}, End: result.LoadAvg{One: 2.05}},
			"load: other processes <1% · steal 0% · this run 96% of 2 CPUs over 72s · load average 0.12 at start, 2.05 at end"},
		{&result.Load{CPUs: 1, Other: 0.08, Steal: 0.03},
			"load: other processes 8% · steal 3% · this run 0% of 1 CPU · load average 0.00 at start, 0.00 at end"},
	} {
		assert.Equal(t, tc.s, tc.l.String())
	}
}

// TestLoadJSON: a file without a load (an older lab's) reads as nil, and
// a recorded load keeps its figures.
func TestLoadJSON(t *testing.T) {
	var h result.Host
	require.NoError(t, json.Unmarshal([]byte(`{"hostname":"vm","hypervisor":"KVMKVMKVM"}`), &h))
	assert.Nil(t, h.Load)
	assert.Equal(t, "load not recorded", h.Load.String())
	assert.Equal(t, "KVM", h.HypervisorName())

	h.Load = &result.Load{CPUs: 2, Seconds: 10, Own: 0.6, Other: 0.15, Steal: 0.025,
		Start: result.LoadAvg{One: 0.3, Five: 0.4, Fifteen: 0.5, Runnable: 1, Tasks: 200}}
	b, err := json.Marshal(h)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"load":{"cpus":2,"loadavg_start":{"one":0.3,"five":0.4,"fifteen":0.5,"runnable":1,"tasks":200}`)
	var back result.Host
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, h.Load, back.Load)
}
