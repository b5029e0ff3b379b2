package conformance

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/internal/mono"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adversarialFor is how long the Adversarial case runs each configuration:
// briefly in CI, as long as you like by hand, e.g.
//
//	go test ./atomicgen -run 'Conformance/Adversarial' -adversarial 30s
var adversarialFor = flag.Duration("adversarial", 120*time.Millisecond,
	"how long the conformance suite's Adversarial case runs each configuration")

// adversarialSeed fixes the clock's script, so a failure can be replayed.
var adversarialSeed = flag.Uint64("adversarial-seed", 1, "seed of the Adversarial case's clock script")

// Bounds of the Adversarial case.
const (
	advWorkers = 8
	advMaxIDs  = 2_000_000 // stop a configuration early once it has this many IDs
	advMaxWait = 5 * time.Millisecond
	// advSlack is added to the bound on a call's duration for scheduling
	// on a busy machine under -race. It guards against waits that last as
	// long as a clock step (the steps back are 5 s), not speed.
	advSlack = 2 * time.Second
)

// chaosClock reads the system clock through a script of phases that
// change every phaseReads reads: offsets back and forward, small (within
// MaxWait) and large (5 s back, 1 s ahead), a clock frozen for 20 ms at a
// time, and one that retreats on every read. The script is drawn from a
// seeded generator; which goroutine reads which phase is up to the
// scheduler, and the invariants must hold whatever it does.
type chaosClock struct {
	reads  atomic.Int64
	phases []chaosPhase
	base   int64 // system time at mono origin
}

type chaosPhase struct {
	offset  int64
	freeze  bool // hold the clock for 20 ms at a time
	retreat bool // 1 µs back on every read
}

const phaseReads = 2000

func newChaosClock(seed uint64) *chaosClock {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	offsets := []time.Duration{0, 0, 0, -2 * time.Millisecond, -4 * time.Millisecond, 3 * time.Millisecond,
		-300 * time.Millisecond, -5 * time.Second, 50 * time.Millisecond, time.Second}
	c := &chaosClock{base: time.Now().UnixNano() - mono.Now()}
	for range 256 {
		c.phases = append(c.phases, chaosPhase{
			offset:  int64(offsets[rng.IntN(len(offsets))]),
			freeze:  rng.IntN(6) == 0,
			retreat: rng.IntN(8) == 0,
		})
	}
	return c
}

func (c *chaosClock) UnixNano() int64 {
	k := c.reads.Add(1)
	ph := c.phases[(k/phaseReads)%int64(len(c.phases))]
	m := mono.Now()
	if ph.freeze {
		m -= m % int64(20*time.Millisecond)
	}
	if ph.retreat {
		m -= (k % phaseReads) * int64(time.Microsecond)
	}
	return c.base + m + ph.offset
}

var _ clocksrc.Clock = (*chaosClock)(nil)

// advID is one ID as a worker got it: from which generator, in which call.
type advID struct {
	id  snowlab.ID
	gen int32
}

// testAdversarial drives the generator with many goroutines under the
// chaos clock, mixing NextID with NextIDs of odd sizes, while generators
// are rebuilt one after another on one fence (as from one lease, each
// stopping the one before). It asserts: no ID twice; each goroutine's IDs
// increasing (per shard for a sharded generator), across rebuilds too; no
// error but a refused clock or a stopped generator; and no call lasting
// longer than its waits are bounded to.
func testAdversarial(t *testing.T, s Suite) {
	configs := []struct {
		name string
		cfg  snowlab.Config
	}{
		{"strict", snowlab.Config{Policy: snowlab.Strict}},
		{"monotonic", snowlab.Config{Policy: snowlab.Monotonic}},
		{"monotonic-lead", snowlab.Config{Policy: snowlab.Monotonic, MaxLead: 2 * time.Millisecond}},
	}
	for i, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			runAdversarial(t, s, c.cfg, *adversarialSeed+uint64(i))
		})
	}
}

// advRig is one adversarial run: the generator the workers call now, and
// every generator built so far (by build index, for ShardOf).
type advRig struct {
	s   Suite
	cfg snowlab.Config
	cur atomic.Pointer[advCurrent]

	mu   sync.Mutex
	gens []snowlab.Generator
}

type advCurrent struct {
	g   snowlab.Generator
	gen int32
}

func runAdversarial(t *testing.T, s Suite, cfg snowlab.Config, seed uint64) {
	cfg.Node = 17
	clock := newChaosClock(seed)
	cfg.Clock = clock
	cfg.MaxWait = advMaxWait
	cfg.MaxFloorWait = 20 * time.Millisecond
	cfg.Fence = snowlab.NewFenceFor(cfg.Node, s.nodesUsed(), 0, farFuture)
	r := &advRig{s: s, cfg: cfg}
	for r.cur.Load() == nil {
		r.build(t)
	}

	// The run lasts adversarialFor and until a call has minted. On a
	// loaded machine the workers may read the clock too few times in that
	// time to leave the script's first phases, which can all refuse (a
	// clock 5 s back, a lead used up): nothing was minted at load average
	// 35. A whole pass over the script without an ID ends it too, and
	// the check below fails.
	deadline := time.Now().Add(*adversarialFor)
	var total atomic.Int64
	stop := func() bool {
		switch n := total.Load(); {
		case n >= advMaxIDs:
			return true
		case time.Now().Before(deadline):
			return false
		default:
			return n > 0 || clock.reads.Load() >= phaseReads*int64(len(clock.phases))
		}
	}
	out := make([][]advID, advWorkers)
	errs := make([]error, advWorkers)
	var slowest [advWorkers]time.Duration
	var wg sync.WaitGroup
	for w := range advWorkers {
		wg.Go(func() {
			out[w], slowest[w], errs[w] = r.work(rand.New(rand.NewPCG(seed, uint64(w))), stop, &total)
		})
	}
	for !stop() {
		time.Sleep(15 * time.Millisecond)
		r.build(t)
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	all := r.check(t, out)
	t.Logf("%d IDs from %d generators; slowest call %v", len(all), len(r.gens), slices.Max(slowest[:]))
}

// build builds the next generator on the fence, stopping the one before.
func (r *advRig) build(t *testing.T) {
	g, err := r.s.New(r.cfg)
	if err != nil {
		// Behind the fence's start by more than MaxFloorWait: the earlier
		// generator is already stopped; try again later.
		require.ErrorIs(t, err, snowlab.ErrClockBackwards)
		return
	}
	r.mu.Lock()
	r.gens = append(r.gens, g)
	n := int32(len(r.gens) - 1)
	r.mu.Unlock()
	r.cur.Store(&advCurrent{g, n})
}

// work is one worker: single calls and batches of random sizes on the
// current generator until stop, each call timed against its bound. It
// returns the IDs it got, its slowest call, and the first error that is
// neither a refused clock nor a stopped generator.
func (r *advRig) work(rng *rand.Rand, stop func() bool, total *atomic.Int64) (out []advID, slowest time.Duration, _ error) {
	sizes := []int{1, 3, 7, 100, 4097, 13_000}
	dst := make([]snowlab.ID, 13_000)
	for i := 0; !stop(); i++ {
		c := r.cur.Load()
		size := 0
		if i%3 == 2 {
			size = sizes[rng.IntN(len(sizes))]
		}
		start := time.Now()
		var n int
		var err error
		if size == 0 {
			dst[0], err = c.g.NextID()
			if err == nil {
				n = 1
			}
		} else {
			n, err = c.g.NextIDs(dst[:size])
		}
		took := time.Since(start)
		// A batch may span ticks: each wait is bounded, not the call.
		ticks := time.Duration(size/4096+2) * time.Millisecond
		if bound := advMaxWait + ticks + advSlack; took > bound {
			return out, slowest, fmt.Errorf("a call (batch %d) took %v, more than MaxWait+ticks+slack %v", size, took, bound)
		}
		slowest = max(slowest, took)
		for _, id := range dst[:n] {
			out = append(out, advID{id, c.gen})
		}
		total.Add(int64(n))
		if err != nil && !errors.Is(err, snowlab.ErrClockBackwards) && !errors.Is(err, snowlab.ErrNoReservation) {
			return out, slowest, err
		}
	}
	return out, slowest, nil
}

// check asserts what the run must show: every ID once, each worker's IDs
// increasing per shard across generators, and the fence's LastEnd
// covering the last. It returns every ID, sorted.
func (r *advRig) check(t *testing.T, out [][]advID) []snowlab.ID {
	var all []snowlab.ID
	for _, ids := range out {
		for _, x := range ids {
			all = append(all, x.id)
		}
	}
	require.NotEmpty(t, all, "the chaos left no call a chance to mint")
	// Up to advMaxIDs IDs: plain comparisons, testify only on a failure.
	// A require call per ID (reflection on each) made the check most of
	// the case's time under -race: 2 to 10 s a configuration for 120 ms
	// of minting on 2 cores.
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i-1] == all[i] {
			require.FailNowf(t, "duplicate", "duplicate id %d", all[i])
		}
	}
	for w, ids := range out {
		last := map[int]snowlab.ID{}
		for i, x := range ids {
			key := 0
			if r.s.multi() {
				if key = r.s.ShardOf(r.gens[x.gen], x.id); key < 0 {
					require.FailNowf(t, "no shard", "id %d belongs to no shard", x.id)
				}
			}
			if prev, ok := last[key]; ok && x.id <= prev {
				require.FailNowf(t, "not increasing", "worker %d: id #%d (%d) does not increase over %d (shard %d)", w, i, x.id, prev, key)
			}
			last[key] = x.id
		}
	}
	assert.LessOrEqual(t, tickEnd(all[len(all)-1]), r.cfg.Fence.LastEnd(), "LastEnd covers every ID")
	return all
}
