package host

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestParseStatCPU(t *testing.T) {
	for _, tt := range []struct {
		name, stat string
		want       time.Duration
		ok         bool
	}{
		{"plain", "42 (snowidd) S 1 42 42 0 -1 4194560 100 0 0 0 250 37 0 0 20 0 5", 2870 * time.Millisecond, true},
		{"name with spaces and parens", "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0", 70 * time.Millisecond, true},
		{"short", "7 (x) R 1 7", 0, false},
		{"no name", "7 x R 1 7 7 0 -1 0 0 0 0 0 3 4", 0, false},
		{"not a number", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 u 4 0", 0, false},
		{"negative", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 -3 4 0", 0, false},
	} {
		got, ok := parseStatCPU(tt.stat)
		assert.Equal(t, tt.ok, ok, tt.name)
		assert.Equal(t, tt.want, got, tt.name)
	}
}

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
