package clocksrc_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/clocksrc"
)

func TestAudit(t *testing.T) {
	reports := clocksrc.Audit(1000)
	names := make([]string, len(reports))
	for i, r := range reports {
		names[i] = r.Name
	}
	require.Equal(t, []string{
		"realtime (x/sys clock_gettime)",
		"monotonic (x/sys clock_gettime)",
		"default (vDSO + anchor)",
		"vdso monotonic (runtime.nanotime)",
		"time.Now",
	}, names)

	for _, r := range reports {
		t.Run(r.Name, func(t *testing.T) {
			assert.Positive(t, r.NsPerRead)
			assert.GreaterOrEqual(t, r.Resolution, time.Duration(0))
			// Every source here sits on CLOCK_REALTIME or CLOCK_MONOTONIC,
			// whose clock_getres the audit reports.
			assert.Positive(t, r.KernelResolution)
		})
	}
}

func TestAuditDefaultReads(t *testing.T) {
	// 0 means the default count; just check it runs and reports all five.
	assert.Len(t, clocksrc.Audit(0), 5)
}
