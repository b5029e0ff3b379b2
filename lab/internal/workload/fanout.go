package workload

import (
	"cmp"
	"sync"

	"github.com/snowlab/snowlab/lab/internal/limit"
)

// FanOut runs body on n goroutines released together: each is started and
// waiting before any is let go, so that none gets a head start and what is
// timed is the contention, not the spawning. It returns the release
// instant (monotonic ns), which body also receives, once every body has
// returned. released, when not nil, runs right after the release (saturate
// arms its stop timer there).
func FanOut(n int, released func(), body func(i int, t0 int64)) (t0 int64) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			body(i, t0)
		}()
	}
	ready.Wait()
	t0 = limit.Now()
	close(start)
	if released != nil {
		released()
	}
	done.Wait()
	return t0
}

// failures counts the goroutines that stopped on an error and returns the
// first of them, for Check.Errors and Check.FirstError.
func failures(errs []error) (n int, first error) {
	for _, e := range errs {
		if e != nil {
			n++
			first = cmp.Or(first, e)
		}
	}
	return n, first
}
