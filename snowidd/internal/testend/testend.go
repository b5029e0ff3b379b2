// Package testend bounds a test's waits by the test's own end, not by a
// figure for how long a server, a peer or the scheduler may take: on a
// loaded machine (CI's 2 shared cores at load average 10 to 30) any such
// figure is a premise the machine need not keep.
package testend

import (
	"context"
	"testing"
	"time"
)

// Context is done a tenth of the test's time short of go test's -timeout
// (never without one), so that a wait for an event fails with its own
// message, naming what never happened, rather than in the timeout's
// panic. It is cancelled when the test ends.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if d := Deadline(t); !d.IsZero() {
		cancel()
		ctx, cancel = context.WithDeadline(context.Background(), d)
	}
	t.Cleanup(cancel)
	return ctx
}

// deadline is t's go test -timeout deadline; benchmarks have none.
func deadline(t testing.TB) (time.Time, bool) {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		return d.Deadline()
	}
	return time.Time{}, false
}

// Deadline is when Context is done: the deadline for a read or a write
// that should wait for an event as long as the test may; the zero time
// (no deadline) without a -timeout.
func Deadline(t testing.TB) time.Time {
	d, ok := deadline(t)
	if !ok {
		return time.Time{}
	}
	return d.Add(-time.Until(d) / 10)
}

// WaitFor polls cond every 10 ms until it holds, failing t with what if
// it never does by the test's end (Context).
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	end := Context(t)
	for !cond() {
		select {
		case <-end.Done():
			t.Fatalf("%s: never, by the test's end", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
