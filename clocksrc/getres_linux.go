package clocksrc

import (
	"time"

	"golang.org/x/sys/unix"
)

func getresRealtime() time.Duration  { return getres(unix.CLOCK_REALTIME) }
func getresMonotonic() time.Duration { return getres(unix.CLOCK_MONOTONIC) }

func getres(id int32) time.Duration {
	var ts unix.Timespec
	if unix.ClockGetres(id, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
