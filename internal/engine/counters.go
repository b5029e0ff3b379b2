package engine

import (
	"sync/atomic"

	"github.com/snowlab/snowlab"
)

// Counters are a state word's slow-path counts. They are written only off
// the fast path, so they may share the word's cache line.
type Counters struct {
	casRetries, tickWaits, rewindWaits, refusals atomic.Uint64
}

// Stats returns the counts so far.
func (c *Counters) Stats() snowlab.Stats {
	return snowlab.Stats{
		CASRetries:     c.casRetries.Load(),
		TickWaits:      c.tickWaits.Load(),
		RewindWaits:    c.rewindWaits.Load(),
		RewindRefusals: c.refusals.Load(),
	}
}
