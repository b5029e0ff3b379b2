package subject

import (
	"encoding/binary"
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

// ID128 is the ID of a 16-byte identifier (a UUID, a ULID) read as one
// big-endian number, so that Less is its byte order.
func ID128(b [16]byte) ID {
	return ID{Hi: binary.BigEndian.Uint64(b[0:8]), Lo: binary.BigEndian.Uint64(b[8:16])}
}

// Bytes128 is the inverse of ID128.
func (a ID) Bytes128() (b [16]byte) {
	binary.BigEndian.PutUint64(b[0:8], a.Hi)
	binary.BigEndian.PutUint64(b[8:16], a.Lo)
	return b
}

// Minter is one live generator instance: all a library must offer is one
// ID per call. What more it offers it says by implementing Filler (a
// batch call), StatsReporter (slow-path counts), Sharder (order per
// shard) or PerCaller (state of its own for each goroutine), as a Writer
// says it can do more by implementing io.WriterTo; the functions Fill,
// Stats and Callers use them where they are there.
type Minter interface {
	// Next returns one ID.
	Next() (ID, error)
}

// Filler is implemented by a Minter with a batch call.
type Filler interface {
	// Fill writes up to len(dst) IDs into dst and returns how many it
	// wrote; fewer only with an error.
	Fill(dst []ID) (int, error)
}

// StatsReporter is implemented by a Minter that counts its slow paths.
type StatsReporter interface {
	Stats() snowlab.Stats
}

// Sharder is implemented by a Minter whose order is promised per shard
// (OrderShard): it names the shard an ID came from.
type Sharder interface {
	ShardOf(ID) int
}

// PerCaller is implemented by a Minter whose callers each need state of
// their own: a client that fetches IDs in batches and hands them out one
// at a time must give each goroutine IDs from batches that goroutine
// fetched, for that goroutine's IDs to increase (OrderCaller) while the
// other goroutines' fetches are in flight. The workloads take one per
// goroutine from the run's instance before they release the goroutines
// (Callers); the instance still answers Stats and ShardOf for the run.
type PerCaller interface {
	// NewCaller returns a Minter for one goroutine's calls, drawing on
	// the instance's generator. It need not be safe for concurrent use.
	NewCaller() Minter
}

// Callers returns the Minter each of n goroutines calls: a NewCaller of m
// each where m is a PerCaller, else m itself, which every goroutine shares.
func Callers(m Minter, n int) []Minter {
	out := make([]Minter, n)
	pc, ok := m.(PerCaller)
	for i := range out {
		if ok {
			out[i] = pc.NewCaller()
		} else {
			out[i] = m
		}
	}
	return out
}

// Fill writes len(dst) IDs from m: through its batch call where m is a
// Filler, else one Next per ID, stopping at the first error. It returns
// how many it wrote.
func Fill(m Minter, dst []ID) (int, error) {
	if f, ok := m.(Filler); ok {
		return f.Fill(dst)
	}
	for i := range dst {
		id, err := m.Next()
		if err != nil {
			return i, err
		}
		dst[i] = id
	}
	return len(dst), nil
}

// Stats is m's slow-path counts where m is a StatsReporter, zero where it
// keeps none.
func Stats(m Minter) snowlab.Stats {
	if r, ok := m.(StatsReporter); ok {
		return r.Stats()
	}
	return snowlab.Stats{}
}

// Order is what a generator promises about the order of the IDs one
// goroutine receives.
type Order int

const (
	// OrderNone: no promise (the lab still reports what it saw).
	OrderNone Order = iota
	// OrderCaller: each goroutine's IDs increase.
	OrderCaller
	// OrderShard: IDs increase within a shard (the minter, a Sharder,
	// says which).
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
	// Order is the promised order. With OrderShard the minter is a
	// Sharder.
	Order Order
	// Nodes is how many node ids one instance holds (the ceiling
	// multiplier); PerTick is IDs per node per tick, and Tick the tick's
	// length (0 when the generator has no such ceiling).
	Nodes   int
	PerTick int
	Tick    time.Duration
	// Shards is how many independent sequence spaces an instance splits
	// its ceiling among, one per shard of a Sharder (0 is 1): shardedgen's
	// split-sequence mode gives each shard PerTick/Shards of the node's.
	Shards int
	// Decode returns an ID's embedded time and node (node -1 where the
	// format has none).
	Decode func(ID) (t time.Time, node int)
	// Batch is true when the minter is a Filler (a batch call); the
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
	// ServerCPU, for a subject another process serves, reads the CPU
	// time that process has used, where the lab can (nil: it cannot),
	// so that the saturate workload reports what one core of the server
	// gives beside what the whole host did.
	ServerCPU func() (time.Duration, bool)
}

// SlotCapacity is how many IDs one shard may mint in one tick under the
// strict ceiling (PerTick × Nodes / Shards), or 0 for a subject with no
// strict ceiling.
func (s Subject) SlotCapacity() float64 {
	if !s.Strict || s.PerTick == 0 || s.Tick == 0 {
		return 0
	}
	return float64(s.PerTick*max(s.Nodes, 1)) / float64(max(s.Shards, 1))
}

// Ceiling is the subject's strict ceiling in IDs per second, or 0 when it
// has none.
func (s Subject) Ceiling() float64 {
	if s.PerTick == 0 || s.Tick == 0 {
		return 0
	}
	return float64(s.PerTick*max(s.Nodes, 1)) / s.Tick.Seconds()
}
