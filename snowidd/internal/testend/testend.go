// Package testend bounds a test's waits by the test's own end, not by a
// figure for how long a server, a peer or the scheduler may take: on a
// loaded machine (CI's 2 shared cores at load average 10 to 30) any such
// figure is a premise the machine need not keep.
package testend

import (
	"context"
	"testing"
	"time"

	"github.com/snowlab/snowlab/nodeid/storetest"
)

// Context is storetest.UntilTestEnds, the repository's one bound for a
// test's waits: done a tenth of the test's time short of go test's
// -timeout (never without one), so that a wait for an event fails with
// its own message, naming what never happened, rather than in the
// timeout's panic.
func Context(t *testing.T) context.Context { return storetest.UntilTestEnds(t) }

// Deadline is when Context is done: the deadline for a read or a write
// that should wait for an event as long as the test may; the zero time
// (no deadline) without a -timeout.
func Deadline(t *testing.T) time.Time {
	d, _ := Context(t).Deadline()
	return d
}

// WaitFor polls cond every 10 ms until it holds, failing t with what if
// it never does by the test's end (Context).
func WaitFor(t *testing.T, what string, cond func() bool) {
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
