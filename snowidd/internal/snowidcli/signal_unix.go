//go:build unix

package snowidcli

import (
	"os"
	"syscall"
)

// raiseSignal sends sig to this process, and reports whether it could.
// No longer notified, SIGINT and SIGTERM reach the runtime's handler,
// which restores their default action and raises them again: the process
// dies of the signal.
func raiseSignal(sig os.Signal) bool {
	s, ok := sig.(syscall.Signal)
	return ok && syscall.Kill(syscall.Getpid(), s) == nil
}
