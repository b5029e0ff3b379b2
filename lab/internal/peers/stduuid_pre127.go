//go:build !go1.27

package peers

import "github.com/snowlab/snowlab/lab/subject"

// stdlibPeers is empty before Go 1.27, whose standard library has no uuid
// package: stduuid.go, built with the go1.27 tag, lists its NewV7.
func stdlibPeers() []subject.Subject { return nil }
