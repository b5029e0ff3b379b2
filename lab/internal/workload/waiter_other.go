//go:build !linux

package workload

import (
	"time"

	"github.com/snowlab/snowlab/lab/internal/limit"
)

// waiter sleeps with time.Sleep here, which the runtime may round up to a
// millisecond when nothing else wakes it.
type waiter struct{}

func newWaiter() *waiter { return &waiter{} }

func (w *waiter) sleepUntil(t int64) { time.Sleep(time.Duration(t - limit.Now())) }

func (w *waiter) close() {}
