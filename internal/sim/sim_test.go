package sim

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
)

var (
	flagSeeds = flag.Int("sim.seeds", 0, "how many schedules TestSimulation runs (TestSimulationReplays: runs twice), from seed 1 (0: the CI budget)")
	flagSeed  = flag.Uint64("sim.seed", 0, "replay this one schedule (with -v, its trace)")
	flagBug   = flag.String("sim.bug", "", "with -sim.seed: the store mutant to replay it against")
)

// result is what one schedule ended with.
type result struct {
	fail   string
	digest uint64
	stats  stats
	p      params
	lines  []string
}

// runSeed runs schedule seed in a bubble of its own, against the store
// with bug switched on, and returns its result.
func runSeed(t *testing.T, seed uint64, bug string, checks checkSet) result {
	return runSeedTrace(t, seed, bug, checks, false)
}

// runSeedTrace is runSeed; with keep, the result holds the trace.
func runSeedTrace(t *testing.T, seed uint64, bug string, checks checkSet, keep bool) result {
	var res result
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(seed, bug, checks)
		w.keep = keep
		w.ends = time.Now().Add(w.p.length)
		for i := range w.p.holders {
			w.hs = append(w.hs, newHolder(w, i))
		}
		done := make(chan struct{})
		for i, h := range w.hs {
			go func() {
				defer func() { done <- struct{}{} }()
				toPhase(phase(i, 0))
				h.run()
			}()
		}
		w.drive()
		for range w.hs {
			<-done
		}
		synctest.Wait() // the crashed processes' refreshers return
		w.mu.Lock()
		w.chk.finish()
		res = result{fail: w.chk.fail, digest: w.sum(), stats: w.stats, p: w.p, lines: w.lines}
		w.mu.Unlock()
	})
	return res
}

// drive is the driver's goroutine (phase 0): it crashes the store at
// times drawn from the seed, then, when the holders' time is up, heals
// every fault so that they can release their leases.
func (w *world) drive() {
	at := make([]time.Duration, w.p.storeCrashes)
	for i := range at {
		at[i] = time.Duration(w.rng.Int64N(int64(w.p.length)))
	}
	start := time.Now()
	for _, d := range sortDurations(at) {
		sleep(start.Add(d).Sub(time.Now()))
		w.mu.Lock()
		w.st.crash(time.Duration(1+w.rng.IntN(int(w.p.ttl/time.Millisecond))) * time.Millisecond)
		w.mu.Unlock()
	}
	sleep(time.Until(w.ends))
	w.mu.Lock()
	w.done = true
	w.st.downUntil = 0
	for _, h := range w.hs {
		h.partUntil = 0
	}
	w.mu.Unlock()
}

func sortDurations(d []time.Duration) []time.Duration {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
	return d
}

// replay is the one command that replays seed.
func replay(seed uint64) string {
	return fmt.Sprintf("go test ./internal/sim -run TestSimulation -sim.seed %d -v", seed)
}

// TestSimulation runs the CI budget of schedules (or -sim.seeds of them,
// or the one -sim.seed names) on a correct store, and fails on the first
// violation, printing the command that replays it.
func TestSimulation(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if *flagSeed != 0 {
		r := runSeedTrace(t, *flagSeed, *flagBug, checkAll, testing.Verbose())
		for _, l := range r.lines {
			t.Log(l)
		}
		t.Logf("seed %d: %+v\n%+v\ndigest %x", *flagSeed, r.p, r.stats, r.digest)
		if r.fail != "" {
			t.Fatalf("seed %d: %s", *flagSeed, r.fail)
		}
		return
	}
	n := ciSeeds
	if *flagSeeds > 0 {
		n = *flagSeeds
	}
	var total stats
	start := time.Now()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := runSeed(t, seed, bugNone, checkAll)
		if r.fail != "" {
			t.Fatalf("seed %d: %s\nreplay: %s", seed, r.fail, replay(seed))
		}
		total.add(r.stats)
	}
	el := time.Since(start)
	t.Logf("%d schedules in %v (%.0f/s): %+v", n, el.Round(time.Millisecond), float64(n)/el.Seconds(), total)
}
