//go:build !linux && !darwin

package clocksrc

import (
	"time"

	"github.com/snowlab/snowlab/internal/mono"
)

// syscallSource names what Realtime and Monotonic read here: there is no
// clock_gettime on this system, so the portable equivalents Go's runtime
// uses (the wall clock of time.Now, and the runtime's monotonic clock).
const syscallSource = "time.Now and runtime.nanotime: no clock_gettime here"

func realtimeNow() int64 { return time.Now().UnixNano() }

func syscallMonotonic() int64 { return mono.Now() }
