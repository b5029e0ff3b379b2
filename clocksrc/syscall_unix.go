//go:build linux || darwin

package clocksrc

import "golang.org/x/sys/unix"

// syscallSource names what Realtime and Monotonic read here.
const syscallSource = "x/sys clock_gettime"

func realtimeNow() int64 { return gettime(unix.CLOCK_REALTIME) }

func syscallMonotonic() int64 { return gettime(unix.CLOCK_MONOTONIC) }

func gettime(id int32) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		// CLOCK_REALTIME and CLOCK_MONOTONIC exist on every Linux kernel
		// and macOS release Go supports; failing here means the process
		// cannot tell time.
		panic("clocksrc: clock_gettime: " + err.Error())
	}
	return ts.Nano()
}
