package workload

import (
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/snowlab/snowlab/lab/internal/limit"
)

// waiter sleeps on a timerfd, which the runtime's network poller watches
// like a socket: the poller wakes when the timer fires, to the
// microsecond, instead of at its own rounding of a sleep (a millisecond
// for anything shorter), and no goroutine has to spin for it.
type waiter struct {
	f   *os.File // nil: sleep with time.Sleep
	fd  int      // f's, kept: f.Fd would make f blocking
	buf [8]byte
}

func newWaiter() *waiter {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &waiter{}
	}
	return &waiter{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}
}

// sleepUntil returns at or after monotonic time t (mono.Now reads
// CLOCK_MONOTONIC, the timer's clock).
func (w *waiter) sleepUntil(t int64) {
	if w.f != nil {
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(t)}
		if unix.TimerfdSettime(w.fd, unix.TFD_TIMER_ABSTIME, &spec, nil) == nil {
			if _, err := w.f.Read(w.buf[:]); err == nil {
				return
			}
		}
		w.close() // not the timer it was: sleep from here on
	}
	time.Sleep(time.Duration(t - limit.Now()))
}

func (w *waiter) close() {
	if w.f != nil {
		_ = w.f.Close()
		w.f = nil
	}
}
