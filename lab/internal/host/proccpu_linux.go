package host

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// ProcessCPU is the CPU time process pid has used, user and system, read
// from /proc in clock ticks of 10 ms; ok is false when it cannot be read.
// It is how the lab reads a server it started, which getrusage cannot
// until the server has exited.
func ProcessCPU(pid int) (cpu time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime, fields 14 and 15 of a
// /proc/PID/stat line.
func parseStatCPU(stat string) (time.Duration, bool) {
	_, f, ok := statFields(stat)
	if !ok || len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || utime < 0 || stime < 0 {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}
