package subject

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/lab/internal/limit"
)

// The physical-limit subjects' names. Every other subject names the one
// it is read against in Subject.Limit.
const (
	// LimitClockCAS reads the default clock and moves one shared word
	// with a compare-and-swap: the least a generator on one word whose
	// every ID takes a compare-and-swap can do (the peers' limit).
	LimitClockCAS = "limit/clock+cas"
	// LimitPerP does the same on the calling P's own word: the limit a
	// sharded generator's scaling is read against.
	LimitPerP = "limit/per-p"
	// LimitClockAdd reads the monotonic clock and takes the next count of
	// one shared word with a fetch-and-add (a compare-and-swap once per
	// new tick): the least snowlab's single-word generators must do,
	// whose common path is that fetch-and-add.
	LimitClockAdd = "limit/clock+add"
	// LimitPerPAdd does the same on the calling P's own word: the least
	// shardedgen must do.
	LimitPerPAdd = "limit/per-p+add"
)

// LimitFor is the limit a generator is read against: the fetch-and-add
// loop on the calling P's word for a sharded one, on one shared word
// otherwise, when its common path is a fetch-and-add (add: every snowlab
// generator on a layout with room above the sequence for fetch-add's
// overshoot, the default among them); the compare-and-swap loop when its
// every ID takes a compare-and-swap (or a lock, which is one). A limit
// that does more than the path it bounds is beaten, and then it is no
// limit: atomicgen/monotonic read 0.77× of limit/clock+cas at G=4.
func LimitFor(sharded, add bool) string {
	switch {
	case sharded && add:
		return LimitPerPAdd
	case sharded:
		return LimitPerP
	case add:
		return LimitClockAdd
	}
	return LimitClockCAS
}

// Limits returns the physical-limit subjects: the loop bodies of package
// github.com/snowlab/snowlab/lab/internal/limit run as subjects, so that
// each generator's figures in a run can be read as a ratio to what the
// host can do at all: limit/clock+cas and limit/per-p (a clock read, then
// one compare-and-swap moving a padded word to max(old+1, now)), then
// limit/clock+add and limit/per-p+add (a clock read and one
// fetch-and-add, snowlab's own common path). The compare-and-swap
// limits' IDs are nanoseconds since Limits was called, the fetch-and-add
// limits' a tick of 2^20 ns above a count (limit.Word.Take); the per-P
// ones are shifted left with the word's index in the low bits. They are
// unique and increase per word, so the lab's checks hold for them; they
// promise no tick ceiling.
func Limits() []Subject {
	clock := clocksrc.Default()
	epoch := clock.UnixNano()
	now := func() uint64 { return uint64(max(clock.UnixNano()-epoch, 0)) }
	casAt := func(ns uint64) time.Time { return time.Unix(0, epoch+int64(ns)) }
	// The fetch-and-add limits (limit.Word.Take) read the runtime's
	// monotonic clock (runtime.nanotime, the vDSO read under every
	// snowlab default-clock read, which adds a segment load and a
	// multiply), called directly, with no closure or interface between,
	// so that they do no more than the generators' own path.
	origin := limit.Now()
	addAt := func(v uint64) time.Time {
		return time.Now().Add(time.Duration(int64(limit.TickOf(v)) + origin - limit.Now()))
	}
	return []Subject{
		limitSubject(LimitClockCAS, "not a generator: the default clock read and one compare-and-swap on one padded word per ID, "+
			"with no sequence logic; the peers, and any generator whose every ID takes a compare-and-swap, are read against it",
			false, casAt, func() Minter {
				m := &limitMinter{w: new(limit.Word)}
				m.next = func() uint64 {
					v, lost := m.w.Advance(now())
					m.count(lost)
					return v
				}
				return m
			}),
		limitSubject(LimitPerP, "not a generator: the default clock read and one compare-and-swap on the calling P's padded word "+
			"(picked by procPin) per ID; shardedgen's scaling is read against its scaling",
			true, casAt, func() Minter {
				m := &limitMinter{p: limit.NewPerP(runtime.GOMAXPROCS(0))}
				m.next = func() uint64 {
					v, _, lost := m.p.Advance(now())
					m.count(lost)
					return v
				}
				return m
			}),
		limitSubject(LimitClockAdd, "not a generator: a monotonic clock read and one fetch-and-add on one padded word per ID "+
			"(a compare-and-swap once per new tick), as snowlab's single-word generators' common path; they are read against it",
			false, addAt, func() Minter { return &addMinter{limitMinter: limitMinter{w: new(limit.Word)}, origin: origin} }),
		limitSubject(LimitPerPAdd, "not a generator: a monotonic clock read and one fetch-and-add on the calling P's padded word "+
			"(a compare-and-swap once per new tick), as shardedgen's common path; shardedgen is read against it",
			true, addAt, func() Minter {
				return &addMinter{limitMinter: limitMinter{p: limit.NewPerP(runtime.GOMAXPROCS(0))}, origin: origin}
			}),
	}
}

// limitSubject is one limit: on one word, its IDs increasing per caller,
// or on the calling P's (perP), increasing per word, the word's index in
// the low bits. at reads the time out of an ID's value. Library names
// the package the loops live in. The report only shows it: comparison,
// history and the gate key on Name, so runs that recorded an older path
// (results/ holds .../internal/benchgen/limit) still compare with new
// ones.
func limitSubject(name, note string, perP bool, at func(uint64) time.Time, mint func() Minter) Subject {
	s := Subject{Name: name, Library: "github.com/snowlab/snowlab/lab/internal/limit", Physical: true, Nodes: 1, Note: note,
		Order: OrderCaller, Decode: func(id ID) (time.Time, int) { return at(id.Lo), -1 },
		New: func() (Minter, error) { return mint(), nil }}
	if perP {
		s.Order = OrderShard
		s.Decode = func(id ID) (time.Time, int) { return at(limit.Value(id.Lo)), limit.Shard(id.Lo) }
	}
	return s
}

// addMinter is one instance of a fetch-and-add limit: on w, or on p's
// words when p is set (limitMinter's fields; its next is unused).
type addMinter struct {
	limitMinter
	origin int64
}

func (m *addMinter) Next() (ID, error) {
	now := uint64(limit.Now() - m.origin)
	if m.p != nil {
		v, _, lost := m.p.Take(now)
		m.count(lost)
		return ID{Lo: v}, nil
	}
	v, lost := m.w.Take(now)
	m.count(lost)
	return ID{Lo: v}, nil
}

// limitMinter is one instance of a limit subject. Lost compare-and-swaps
// are counted on a word of their own, and only when there are any, so
// that counting adds nothing to the uncontended loop.
type limitMinter struct {
	w    *limit.Word
	p    *limit.PerP
	next func() uint64
	lost struct {
		_ [limit.CacheLine]byte
		n atomic.Uint64
		_ [limit.CacheLine]byte
	}
}

func (m *limitMinter) count(lost int) {
	if lost > 0 {
		m.lost.n.Add(uint64(lost))
	}
}

func (m *limitMinter) Next() (ID, error) { return ID{Lo: m.next()}, nil }

// ShardOf names the word an ID of limit/per-p came from.
func (m *limitMinter) ShardOf(id ID) int { return limit.Shard(id.Lo) }

// Stats reports the compare-and-swaps lost, as CASRetries.
func (m *limitMinter) Stats() snowlab.Stats { return snowlab.Stats{CASRetries: m.lost.n.Load()} }
