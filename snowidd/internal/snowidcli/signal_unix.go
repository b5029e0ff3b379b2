//go:build unix

package snowidcli

import (
	"errors"
	"os"
	"syscall"
)

// heldSignals are notified while gen -lease runs, to a channel nobody
// reads: with SIGPIPE notified, a write into a closed standard output
// fails with EPIPE, which gen handles as it does a stop signal, instead
// of ending the process at once with its lease held. (A SIGPIPE is no
// stop signal itself: the kernel sends one for a write to any closed
// socket, such as a store's connection torn down by a TLS refusal.)
var heldSignals = []os.Signal{syscall.SIGPIPE}

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
