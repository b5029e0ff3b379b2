package clocksrc

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sys/unix"
)

// The flags and states are declared in this package so that every system
// decodes them alike; they must be Linux's.
func TestKernelConstantsAreLinux(t *testing.T) {
	for _, c := range []struct {
		ours   Status
		linuxs int
	}{
		{StaPLL, unix.STA_PLL}, {StaPPSFreq, unix.STA_PPSFREQ}, {StaPPSTime, unix.STA_PPSTIME},
		{StaFLL, unix.STA_FLL}, {StaIns, unix.STA_INS}, {StaDel, unix.STA_DEL},
		{StaUnsync, unix.STA_UNSYNC}, {StaFreqHold, unix.STA_FREQHOLD}, {StaPPSSignal, unix.STA_PPSSIGNAL},
		{StaPPSJitter, unix.STA_PPSJITTER}, {StaPPSWander, unix.STA_PPSWANDER}, {StaPPSError, unix.STA_PPSERROR},
		{StaClockErr, unix.STA_CLOCKERR}, {StaNano, unix.STA_NANO}, {StaMode, unix.STA_MODE}, {StaClk, unix.STA_CLK},
	} {
		assert.Equal(t, c.linuxs, int(c.ours), "%v", c.ours)
	}
	for _, c := range []struct {
		ours   TimeState
		linuxs int
	}{
		{TimeOK, unix.TIME_OK}, {TimeIns, unix.TIME_INS}, {TimeDel, unix.TIME_DEL},
		{TimeOOP, unix.TIME_OOP}, {TimeWait, unix.TIME_WAIT}, {TimeError, unix.TIME_ERROR},
	} {
		assert.Equal(t, c.linuxs, int(c.ours), "%v", c.ours)
	}
}

// TestReadKernelHere reads this machine's kernel, read only. What it says
// depends on the host; that it answers, in range, does not. A sandbox that
// forbids adjtimex must be reported as unknown, with the reason.
func TestReadKernelHere(t *testing.T) {
	k := ReadKernel()
	if !k.Known {
		var tx unix.Timex
		_, err := unix.Adjtimex(&tx)
		if assert.Error(t, err, "the kernel answered adjtimex, yet ReadKernel says unknown: %s", k.Reason) {
			assert.True(t, errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS), "%v", err)
			assert.Contains(t, k.Reason, "adjtimex")
		}
		return
	}
	assert.Empty(t, k.Reason)
	assert.GreaterOrEqual(t, int(k.State), int(TimeOK))
	assert.LessOrEqual(t, int(k.State), int(TimeError))
	assert.GreaterOrEqual(t, k.MaxError, time.Duration(0))
	assert.GreaterOrEqual(t, k.EstError, time.Duration(0))
	assert.Equal(t, k.State != TimeError && k.Status&StaUnsync == 0, k.Synchronized)
}
