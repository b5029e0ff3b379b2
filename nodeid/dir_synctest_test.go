package nodeid_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// TestDirLeaseInABubble: a Dir lease taken inside a testing/synctest
// bubble lets virtual time move: its refresher waits on the claim's Lost
// channel, which must belong to the bubble. With one package-level
// channel, made outside every bubble, the refresher never counted as
// durably blocked, virtual time never moved, and a test sleeping beside
// the lease hung (the lab's peerfaults replay did, for 10 minutes). The
// bubble runs in a goroutine so that such a hang fails the test, naming
// it, when the test's time is nearly up (storetest.UntilTestEnds) instead
// of in go test's timeout's panic. (A minute of real time, for a few virtual
// seconds of work and fifteen file writes, was the bound before.)
func TestDirLeaseInABubble(t *testing.T) {
	dir := t.TempDir()
	done := make(chan struct{})
	go func() {
		defer close(done)
		synctest.Test(t, func(t *testing.T) {
			// The bubble's time starts in 2000, before the layout's epoch.
			shift := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC).Sub(time.Now())
			clock := clocksrc.Func(func() int64 { return time.Now().Add(shift).UnixNano() })
			l, err := nodeid.Acquire(context.Background(), nodeid.Dir(dir), nodeid.Options{Clock: clock, Window: time.Second})
			if err != nil {
				t.Error(err)
				return
			}
			defer l.Release(context.Background())
			g, err := atomicgen.New(l.Config(snowlab.Config{Clock: clock}))
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(5 * time.Second) // five windows: the refresher runs
			if _, err := g.NextID(); err != nil {
				t.Errorf("an ID 5 s into the lease, refreshed meanwhile: %v", err)
			}
		})
	}()
	select {
	case <-done:
	case <-storetest.UntilTestEnds(t).Done():
		t.Fatal("a Dir lease inside a synctest bubble: virtual time never moved (the bubble had not ended by the test's end)")
	}
}
