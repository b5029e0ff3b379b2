package engine

import "golang.org/x/sys/unix"

// nanosleep blocks the calling thread for about d nanoseconds in the
// nanosleep system call, which wakes within the kernel's timer slack.
func nanosleep(d int64) {
	ts := unix.NsecToTimespec(d)
	_ = unix.Nanosleep(&ts, nil) // an interrupted sleep is just a shorter one
}
