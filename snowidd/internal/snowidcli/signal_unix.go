//go:build unix

package snowidcli

import (
	"errors"
	"os"
	"syscall"
)

// stopSignals end gen -lease gracefully: it stops minting, releases its
// lease and then dies of the signal (raise). SIGPIPE is among them so
// that a write into a closed pipe fails with EPIPE, which gen handles the
// same way, instead of ending the process at once.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE}

// raiseSignal sends sig to this process, and reports whether it could.
// No longer notified, SIGINT and SIGTERM reach the runtime's handler,
// which restores their default action and raises them again: the process
// dies of the signal. The runtime ends a process on SIGPIPE only for a
// write to a closed standard output or error, so SIGPIPE is raised by
// writing to the standard output again, which gen found closed.
func raiseSignal(sig os.Signal) bool {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return false
	}
	if s == syscall.SIGPIPE {
		_, err := os.Stdout.Write([]byte{'\n'})
		return errors.Is(err, syscall.EPIPE)
	}
	return syscall.Kill(syscall.Getpid(), s) == nil
}
