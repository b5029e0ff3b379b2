//go:build !unix

package snowidcli

import "os"

// heldSignals: none here (see signal_unix.go).
var heldSignals []os.Signal

// raiseSignal cannot send a signal where a process cannot signal itself
// (Windows): raise's exit code stands for the signal.
func raiseSignal(os.Signal) bool { return false }
