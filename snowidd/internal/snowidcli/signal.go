package snowidcli

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopSignals end gen -lease gracefully: it stops minting, releases its
// lease and then dies of the signal (raise).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// notifyStop delivers stopSignals on the channel it returns until stop is
// called, and holds heldSignals meanwhile; tests replace it with a channel
// of their own.
var notifyStop = func() (sigs <-chan os.Signal, stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	held := make(chan os.Signal, 1)
	if len(heldSignals) > 0 {
		signal.Notify(held, heldSignals...)
	}
	return ch, func() { signal.Stop(ch); signal.Stop(held) }
}

// raise ends the process with sig's default action, after gen -lease has
// given its lease back; tests replace it. Where the signal does not end
// the process (it was ignored when the process started, which Go then
// restores) or cannot be raised (Windows), it returns the shell's code
// for death by sig, 128 plus its number, for the caller to exit with.
var raise = func(sig os.Signal) int {
	code := exitFail
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	signal.Reset(sig)
	if signal.Ignored(sig) || !raiseSignal(sig) {
		return code
	}
	// The runtime's handler ends the process on another thread: an exit
	// here could win that race and end it with code instead.
	time.Sleep(raiseWait)
	return code
}

// raiseWait bounds raise's wait for the signal it sent to end the process.
const raiseWait = 5 * time.Second
