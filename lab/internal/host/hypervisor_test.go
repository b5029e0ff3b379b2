package host

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVendorName(t *testing.T) {
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
		assert.Equal(t, tc.want, vendorName(tc.raw), "%q", tc.raw)
		assert.Equal(t, tc.want, Fingerprint{Hypervisor: tc.raw}.HypervisorName(), "%q", tc.raw)
	}
}
