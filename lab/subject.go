package lab

import (
	"time"

	"github.com/snowlab/snowlab"
)

// ID is an identifier as the lab handles it: a 64-bit ID in Lo (Hi is 0),
// a 128-bit one (UUID, ULID) in Hi:Lo, so that one uniqueness check and one
// order check serve every library.
type ID struct{ Hi, Lo uint64 }

// Less orders IDs as unsigned 128-bit integers, which is the byte order of
// a UUID or ULID and the numeric order of a positive int64.
func (a ID) Less(b ID) bool { return a.Hi < b.Hi || a.Hi == b.Hi && a.Lo < b.Lo }

// Minter is one live generator instance.
type Minter interface {
	// Next returns one ID.
	Next() (ID, error)
	// Fill writes len(dst) IDs, through the library's batch call where it
	// has one and a loop of single calls where it does not.
	Fill(dst []ID) (int, error)
	// Stats reports the generator's slow-path counts (zero for libraries
	// that keep none).
	Stats() snowlab.Stats
}

// Order is what a generator promises about the order of the IDs one
// goroutine receives.
type Order int

const (
	// OrderNone: no promise (the lab still reports what it saw).
	OrderNone Order = iota
	// OrderCaller: each goroutine's IDs increase.
	OrderCaller
	// OrderShard: IDs increase within a shard (the minter's ShardOf says
	// which).
	OrderShard
)

// Subject describes a generator under test and how to build it.
type Subject struct {
	// Name identifies the subject in results, e.g. "atomicgen/strict".
	Name string
	// Library is the Go module the generator comes from.
	Library string
	// Peer is true for libraries other than snowlab.
	Peer bool
	// Strict is true when timestamps never run ahead of the clock, so the
	// per-node, per-tick sequence space is a ceiling the lab checks.
	Strict bool
	// Order is the promised order. With OrderShard the minter implements
	// Sharder.
	Order Order
	// Nodes is how many node ids one instance holds (the ceiling
	// multiplier); PerTick is IDs per node per tick, and Tick the tick's
	// length (0 when the generator has no such ceiling).
	Nodes   int
	PerTick int
	Tick    time.Duration
	// Decode returns an ID's embedded time and node (node -1 where the
	// format has none).
	Decode func(ID) (t time.Time, node int)
	// Batch is true when the library has a batch call behind Fill; the
	// burst is then also run through it.
	Batch bool
	// New builds a fresh instance for one run.
	New func() (Minter, error)
	// Note says anything a reader of the results must know (a default
	// changed to make the comparison fair, a known limit).
	Note string
	// Limit names the physical-limit subject (LimitClockCAS or
	// LimitPerP) this subject's throughput is read against; "" for none.
	Limit string
	// Physical is true for the physical-limit subjects themselves
	// (Limits): loops that do the least any generator must, not
	// generators.
	Physical bool
}

// Ceiling is the subject's strict ceiling in IDs per second, or 0 when it
// has none.
func (s Subject) Ceiling() float64 {
	if s.PerTick == 0 || s.Tick == 0 {
		return 0
	}
	return float64(s.PerTick*max(s.Nodes, 1)) / s.Tick.Seconds()
}
