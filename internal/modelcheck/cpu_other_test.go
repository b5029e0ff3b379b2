//go:build !unix

package modelcheck

import "time"

// cpuTime is not measured here: searches report their wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }
