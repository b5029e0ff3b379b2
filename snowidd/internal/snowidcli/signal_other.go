//go:build !unix

package snowidcli

import (
	"os"
	"syscall"
)

// stopSignals end gen -lease gracefully: it stops minting, releases its
// lease and then exits as if killed by the signal (raise).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// raiseSignal cannot send a signal where a process cannot signal itself
// (Windows): raise's exit code stands for the signal.
func raiseSignal(os.Signal) bool { return false }
