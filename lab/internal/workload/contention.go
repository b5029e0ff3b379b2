package workload

import (
	"slices"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/result"
)

// contentionMeter adds up what slowed a workload's calls down across its
// repeats: the generators' slow-path counts, and the runtime's mutex wait
// and scheduling latency inside the windows it was open (begin to end).
// Only inside them: a saturate sweep interleaves its points' repeats, and
// one point must not be charged another's contention.
type contentionMeter struct {
	stats     snowlab.Stats
	rt0       runtimeSample
	open      bool
	mutexWait float64 // seconds, over the windows
	buckets   []float64
	sched     []uint64 // scheduling latencies recorded in the windows
}

// begin opens a window.
func (c *contentionMeter) begin() { c.rt0, c.open = readRuntime(), true }

// end closes the window begin opened, adding what the runtime recorded in
// it.
func (c *contentionMeter) end() {
	if !c.open {
		return
	}
	c.open = false
	rt := readRuntime()
	if c.rt0.HasMutexWait && rt.HasMutexWait {
		c.mutexWait += max(rt.MutexWaitSeconds-c.rt0.MutexWaitSeconds, 0)
	}
	d := histDelta(c.rt0.SchedLatencyBuckets, c.rt0.SchedLatencyCounts, rt.SchedLatencyBuckets, rt.SchedLatencyCounts)
	if c.sched == nil || !slices.Equal(c.buckets, rt.SchedLatencyBuckets) {
		c.buckets, c.sched = rt.SchedLatencyBuckets, d
		return
	}
	for i := range d {
		c.sched[i] += d[i]
	}
}

// gathered is what a workload's repeats add up for its result: each
// goroutine's latency recorder, the contention meter, the fairness
// window and the repeats' samples of it, and the IDs issued.
type gathered struct {
	recs   []*Recorder
	meter  contentionMeter
	win    *window
	fair   []fairnessSample
	issued int
}

func gather(g int) gathered { return gathered{recs: NewRecorders(g), win: newWindow(g)} }

// sample keeps the fairness of the repeat the window just watched.
func (a *gathered) sample() {
	if fs, ok := sampleOf(a.win.counts()); ok {
		a.fair = append(a.fair, fs)
	}
}

// finish returns the latency, contention and fairness over the repeats.
func (a *gathered) finish() (result.Latency, result.Contention, *result.Fairness) {
	return Merge(a.recs), a.meter.finish(a.issued), fairnessOf(a.fair)
}

// add counts one finished generator instance.
func (c *contentionMeter) add(st snowlab.Stats) { c.stats = c.stats.Add(st) }

// finish closes an open window and returns the figures per ID issued.
func (c *contentionMeter) finish(issued int) result.Contention {
	c.end()
	per := 1 / float64(max(issued, 1))
	var out result.Contention
	out.CASRetriesPerID = float64(c.stats.CASRetries) * per
	out.TickWaitsPerID = float64(c.stats.TickWaits) * per
	out.RewindWaitsPerID = float64(c.stats.RewindWaits) * per
	out.MutexWaitNsPerID = c.mutexWait * 1e9 * per
	out.SchedLatencyP99Ns = histQuantile(c.buckets, c.sched, 0.99) * 1e9
	return out
}
