//go:build !snowidd_faults

package daemon

import "github.com/snowlab/snowlab/clocksrc"

// systemHooks are the system as it is: the kernel's word on the clock,
// and the default clock.
func systemHooks() hooks { return hooks{readKernel: clocksrc.ReadKernel} }
