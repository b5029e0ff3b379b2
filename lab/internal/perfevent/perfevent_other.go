//go:build !linux

package perfevent

import (
	"runtime"

	"github.com/snowlab/snowlab/lab/result"
)

// unavailable is why nothing is counted here.
const unavailable = "unavailable: perf events are Linux-only, this is " + runtime.GOOS

// Counter counts nothing on this system: every Stop says why.
type Counter struct{}

// Open returns a Counter that counts nothing.
func Open() *Counter { return &Counter{} }

// Start does nothing.
func (c *Counter) Start() {}

// Stop reports the counts unavailable, with the reason.
func (c *Counter) Stop(ids int) result.Events { return result.Events{Source: unavailable} }

// Close does nothing.
func (c *Counter) Close() {}

// Probe says why no counter opens here.
func Probe() string { return unavailable }
