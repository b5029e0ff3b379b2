package host

import "strings"

// vendorName is a CPUID vendor string as a name said once. CPUID returns
// the hypervisor's vendor in 12 bytes (EBX, ECX, EDX), which a shorter
// name pads with NULs or fills by repeating itself: KVM returns
// "KVMKVMKVM\0\0\0", bhyve "bhyve bhyve ", VMware "VMwareVMware". A name
// that is not a repeat ("Microsoft Hv") is kept whole, less the padding.
func vendorName(raw string) string {
	s := strings.TrimSpace(strings.ReplaceAll(raw, "\x00", " "))
	for p := 1; p <= (len(s)+1)/2; p++ {
		unit := s[:p]
		k := (len(s) + p - 1) / p
		if k >= 2 && strings.TrimRight(strings.Repeat(unit, k), " ") == s {
			return strings.TrimSpace(unit)
		}
	}
	return s
}

// HypervisorName is the hypervisor's vendor said once ("KVM"), "" where
// none was detected. Result files of older labs hold the raw CPUID string
// ("KVMKVMKVM"); this reads them alike.
func (f Fingerprint) HypervisorName() string { return vendorName(f.Hypervisor) }
