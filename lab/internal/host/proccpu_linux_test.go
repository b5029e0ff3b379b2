package host

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestProcessCPU(t *testing.T) {
	// Some CPU time of our own to read: 30 ms of it by the process's CPU
	// clock, three of /proc's 10 ms ticks. (30 ms of the wall clock, as
	// before, is less CPU time the busier the machine.)
	var ts unix.Timespec
	cpuNow := func() time.Duration {
		require.NoError(t, unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts))
		return time.Duration(ts.Nano())
	}
	for end := cpuNow() + 30*time.Millisecond; cpuNow() < end; {
	}
	cpu, ok := ProcessCPU(os.Getpid())
	assert.True(t, ok)
	assert.Positive(t, cpu)
	_, ok = ProcessCPU(-1)
	assert.False(t, ok)
}
