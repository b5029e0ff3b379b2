package workload

import (
	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/result"
)

// contentionMeter adds up what slowed a workload's calls down across its
// repeats: the generators' slow-path counts, and the runtime's mutex wait
// and scheduling latency between start and finish.
type contentionMeter struct {
	stats snowlab.Stats
	rt0   RuntimeSample
}

func startContention() *contentionMeter { return &contentionMeter{rt0: ReadRuntime()} }

// add counts one finished generator instance.
func (c *contentionMeter) add(st snowlab.Stats) { c.stats = c.stats.Add(st) }

// finish returns the figures per ID issued.
func (c *contentionMeter) finish(issued int) result.Contention {
	per := 1 / float64(max(issued, 1))
	var out result.Contention
	out.CASRetriesPerID = float64(c.stats.CASRetries) * per
	out.TickWaitsPerID = float64(c.stats.TickWaits) * per
	out.RewindWaitsPerID = float64(c.stats.RewindWaits) * per
	out.MutexWaitNsPerID, out.SchedLatencyP99Ns = RuntimeDelta(c.rt0, ReadRuntime(), issued)
	return out
}
