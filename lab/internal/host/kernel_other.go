//go:build !unix

package host

import "runtime"

// kernel is unknown where there is no uname; the OS and architecture are
// in the fingerprint all the same.
func kernel() string { return "unknown: no uname on " + runtime.GOOS }
