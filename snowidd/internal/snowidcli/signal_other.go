//go:build !unix

package snowidcli

import "os"

// raiseSignal cannot send a signal where a process cannot signal itself
// (Windows): raise's exit code stands for the signal.
func raiseSignal(os.Signal) bool { return false }
