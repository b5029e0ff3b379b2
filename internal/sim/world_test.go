package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/snowlab/snowlab"
)

// quantum is the grain of every sleep in a simulation. Each goroutine of
// the world wakes only at instants of its own phase (its offset within a
// quantum: the driver 0, holder h's main goroutine and the refresher of
// each of its leases the offsets phase gives them), and every sleep is a
// whole number of quanta, so no two goroutines ever wake at one virtual
// instant: synctest then runs them in one order, the order of their
// instants, and a seed replays exactly.
const quantum = time.Microsecond

// Mutants: a switch in the simulated store that puts back one of the
// adversarial review's bugs, for TestSimulationCatchesMutants.
const (
	bugNone        = ""
	bugAsyncCommit = "async-commit"          // Reserve acknowledged before it is durable
	bugFloorFirst  = "floor-first-id"        // a range's Floor from its first id only
	bugFloorInside = "floor-one-tick-inside" // Floor one tick before the reservation
)

// params is the shape of one schedule, drawn from its seed.
type params struct {
	holders      int           // processes competing for the node ids
	nodeBits     uint          // 2 or 3: 4 or 8 node ids, so that holders collide
	window       time.Duration // nodeid.Options.Window; Refresh is a third
	ttl          time.Duration // how long the store keeps a claim not renewed
	length       time.Duration // virtual time the holders run
	storeCrashes int           // store crashes the driver schedules
}

func drawParams(r *rand.Rand) params {
	return params{
		holders:      3 + r.IntN(3),
		nodeBits:     2 + uint(r.IntN(2)),
		window:       time.Duration(30+3*r.IntN(11)) * time.Millisecond,
		ttl:          time.Duration(20+r.IntN(60)) * time.Millisecond,
		length:       time.Duration(200+r.IntN(200)) * time.Millisecond,
		storeCrashes: r.IntN(4),
	}
}

// epoch is the layout's: the bubble's clock starts at 2000-01-01 UTC, and
// holders' clocks may be stepped back by a few hundred milliseconds.
var epoch = time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)

func (p params) layout() snowlab.Layout {
	return snowlab.Layout{TimeBits: 41, NodeBits: p.nodeBits, SeqBits: 22 - p.nodeBits, Unit: time.Millisecond, Epoch: epoch}
}

// world is one schedule: the store, the holders, the checker. mu guards
// every field that more than one goroutine of the bubble touches (the
// store's records, the holders' clocks and faults, the checker): the
// virtual instants order them, and the lock makes that order visible to
// the race detector.
type world struct {
	seed  uint64
	bug   string
	p     params
	rng   *rand.Rand // the driver's
	mu    sync.Mutex
	st    *store
	hs    []*holder
	chk   *checker
	ends  time.Time // when the holders stop
	done  bool      // the holders' time is up: faults heal
	tr    interface{ Write([]byte) (int, error) }
	sum   func() uint64
	stats stats
	keep  bool     // keep the trace's lines, for a replay
	lines []string // the trace, when keep
}

// stats counts what a schedule did, for the test's log.
type stats struct {
	ids, refusals, acquires, lostReplies, storeCrashes, crashes, pauses, partitions, steps, freezes, rebuilds, releases int
	waits                                                                                                               int // the generators' waits (a spent tick, a rewind), on virtual time
}

func (s *stats) add(o stats) {
	s.ids += o.ids
	s.refusals += o.refusals
	s.acquires += o.acquires
	s.lostReplies += o.lostReplies
	s.storeCrashes += o.storeCrashes
	s.crashes += o.crashes
	s.pauses += o.pauses
	s.partitions += o.partitions
	s.steps += o.steps
	s.freezes += o.freezes
	s.rebuilds += o.rebuilds
	s.releases += o.releases
	s.waits += o.waits
}

func newWorld(seed uint64, bug string, checks checkSet) *world {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	w := &world{seed: seed, bug: bug, p: drawParams(rng), rng: rng}
	h := fnv.New64a()
	w.tr, w.sum = h, h.Sum64
	w.st = newStore(w)
	w.chk = newChecker(w, checks)
	return w
}

// trace folds an event into the schedule's digest (under mu): two runs of
// one seed must end with the same digest.
func (w *world) trace(format string, args ...any) {
	line := fmt.Sprintf("%v "+format, append([]any{time.Duration(now() - w.ends.UnixNano())}, args...)...)
	fmt.Fprintln(w.tr, line)
	if w.keep {
		w.lines = append(w.lines, line)
	}
}

// sleep sleeps d rounded up to whole quanta (at least one), so that the
// caller keeps its phase.
func sleep(d time.Duration) {
	q := (d + quantum - 1) / quantum
	time.Sleep(max(q, 1) * quantum)
}

// slots is how many refreshers of one holder may run at once, each on a
// phase of its own: the current lease's, and those of crashed processes
// whose Reserve was still in flight.
const slots = 9

// phase is the offset within a quantum of holder h's goroutine in slot s
// (0, its main goroutine; 1..slots, a lease's refresher): 200 ns apart
// per holder, 20 ns per slot, so at most 5 holders.
func phase(h, s int) time.Duration { return time.Duration(1+200*h+20*s) * time.Nanosecond }

// toPhase sleeps until the first instant at or after now at offset off
// within a quantum.
func toPhase(off time.Duration) {
	if d := (off - time.Duration(now())%quantum + quantum) % quantum; d > 0 {
		time.Sleep(d)
	}
}

// now is the bubble's virtual time in Unix nanoseconds.
func now() int64 { return time.Now().UnixNano() }
