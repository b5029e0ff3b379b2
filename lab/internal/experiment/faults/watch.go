package faults

import (
	"sync"
	"time"
)

// readiness is a replica's /readyz polled every interval: when it was not
// ready (or did not answer), as spans.
type readiness struct {
	stop chan struct{}
	wg   sync.WaitGroup
	// samples per replica: time and whether ready, each replica's
	// written by its own goroutine only, read after they end.
	samples [][]sample
}

type sample struct {
	at    time.Time
	ready bool
}

// readinessEvery is how often the rig reads each replica's /readyz: the
// resolution of the not-ready spans it reports.
const readinessEvery = 50 * time.Millisecond

// watchReadiness polls each replica that live says was started (a spare
// is not polled before it is: it was not meant to serve).
func watchReadiness(reps []*replica, live func(r int) bool) *readiness {
	w := &readiness{stop: make(chan struct{}), samples: make([][]sample, len(reps))}
	for i, r := range reps {
		w.wg.Go(func() {
			t := time.NewTicker(readinessEvery)
			defer t.Stop()
			for {
				if live(i) {
					ok, _ := r.Readyz()
					w.samples[i] = append(w.samples[i], sample{time.Now(), ok})
				}
				select {
				case <-w.stop:
					return
				case <-t.C:
				}
			}
		})
	}
	return w
}

// end stops the polling and returns the samples.
func (w *readiness) end() [][]sample {
	close(w.stop)
	w.wg.Wait()
	return w.samples
}

// longestFalse is the length of the longest span over which the events
// said false: from the first false after a true (or the start) to the
// next true (or the last event).
func longestFalse(events []sample) time.Duration {
	var best time.Duration
	var from time.Time // the start of the span under way; zero when none
	for _, e := range events {
		if !e.ready && from.IsZero() {
			from = e.at
		}
		if !from.IsZero() {
			best = max(best, e.at.Sub(from))
		}
		if e.ready {
			from = time.Time{}
		}
	}
	return best
}
