package snowlab

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab/clocksrc"
)

// Policy says what a generator does when the clock will not give it a fresh
// tick: when the sequence of a tick is spent, or the clock goes back.
type Policy int

const (
	// Strict never stamps an ID with a time ahead of the clock. A spent
	// sequence waits for the next tick; a rewind up to MaxWait is waited
	// out and a larger one refused with ErrClockBackwards. Pick it when the
	// timestamp must be the creation time (audit trails, time-range
	// queries on the ID).
	Strict Policy = iota
	// Monotonic runs a logical clock max(last, now): a spent sequence
	// borrows the next tick and a rewind is absorbed by carrying on from the
	// last tick. It never refuses a rewind and waits only when MaxLead is
	// reached or, on a lease, when it has used up the reservation (for
	// the lease to move it, within MaxWait), so the embedded time is an
	// upper bound on the creation time. Pick it when availability matters
	// more than the timestamp's exactness.
	//
	// Its IDs run ahead of the clock, by seconds at full speed when MaxLead
	// is 0 (6.4 s after 2 s at 17 M IDs/s), and nothing but a fence
	// remembers how far: a process restarted on the same node id without
	// one mints IDs its predecessor already issued. On a lease (Fence set)
	// the reservation covers them; on a node id assigned by hand, build the
	// Config with nodeid.StaticConfig, which bounds the lead of every run
	// on such ids (nodeid.StaticMaxLead, 100 ms) and starts the successor
	// past it.
	Monotonic
)

func (p Policy) String() string {
	switch p {
	case Strict:
		return "strict"
	case Monotonic:
		return "monotonic"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// MarshalText returns the policy's name, "strict" or "monotonic", so that
// a Policy in a configuration file or a flag.TextVar reads as the word
// String prints. A Policy with no name is an error wrapping
// ErrInvalidConfig.
func (p Policy) MarshalText() ([]byte, error) {
	switch p {
	case Strict, Monotonic:
		return []byte(p.String()), nil
	}
	return nil, fmt.Errorf("%w: %v has no name", ErrInvalidConfig, p)
}

// UnmarshalText sets p from a name MarshalText returns: strict or
// monotonic, in lower case as String prints them. Any other text is an
// error wrapping ErrInvalidConfig, and p is left as it was.
func (p *Policy) UnmarshalText(text []byte) error {
	for _, q := range []Policy{Strict, Monotonic} {
		if string(text) == q.String() {
			*p = q
			return nil
		}
	}
	return fmt.Errorf("%w: policy %q: want strict or monotonic", ErrInvalidConfig, text)
}

// DefaultMaxWait is the rewind a generator waits out when Config.MaxWait is 0.
const DefaultMaxWait = 5 * time.Millisecond

// Config configures a generator. The zero value is usable: node 0, the
// default layout and clock, Strict, a 5 ms rewind budget.
type Config struct {
	// Node is this holder's node id, 0..Layout.MaxNode().
	Node int
	// Layout is the bit layout; the zero Layout is DefaultLayout.
	Layout Layout
	// Clock is where time comes from; nil is clocksrc.Default().
	Clock clocksrc.Clock
	// Policy is Strict (the zero value) or Monotonic.
	Policy Policy
	// MaxWait is the largest rewind a Strict generator waits out, and the
	// bound on every wait: 0 is DefaultMaxWait, negative refuses every
	// rewind at once.
	MaxWait time.Duration
	// MaxLead (Monotonic only) is how far the embedded time may run ahead of
	// the clock before a call waits for the clock; 0 is unbounded. It is
	// also how far a restarted process on the same node id must start
	// ahead (or wait) so as not to repeat the IDs of the one it replaces:
	// nodeid.StaticConfig does that for a node id assigned by hand, for
	// every lead up to nodeid.StaticMaxLead, and refuses a longer one or 0,
	// which no start covers; a lease's Fence covers any lead instead.
	MaxLead time.Duration
	// Fence, when set, is the node id's reservation (see nodeid): IDs are
	// minted only inside it.
	Fence *Fence
	// MaxFloorWait bounds how long New waits for the clock to pass the
	// previous holder's reservation (Fence.Floor) before it refuses with
	// ErrClockBackwards: 0 is DefaultMaxFloorWait, negative never waits.
	MaxFloorWait time.Duration
}

// Stats counts the slow paths a generator took since it was made.
type Stats struct {
	CASRetries     uint64 // compare-and-swaps lost to another caller
	TickWaits      uint64 // waits for a new tick: sequence spent, MaxLead reached, or (Monotonic) the reservation used up
	RewindWaits    uint64 // rewinds waited out (or waited on until refused)
	RewindRefusals uint64 // calls that returned ErrClockBackwards
}

// Add returns the field-by-field sum of s and o.
func (s Stats) Add(o Stats) Stats {
	return Stats{
		CASRetries:     s.CASRetries + o.CASRetries,
		TickWaits:      s.TickWaits + o.TickWaits,
		RewindWaits:    s.RewindWaits + o.RewindWaits,
		RewindRefusals: s.RewindRefusals + o.RewindRefusals,
	}
}

// Generator mints IDs. Implementations are safe for concurrent use and
// allocate nothing per call.
type Generator interface {
	// NextID returns a new ID.
	NextID() (ID, error)
	// NextIDs fills dst with new IDs, reserving them with as few
	// synchronising operations as the policy allows. It returns how many it
	// wrote; fewer than len(dst) comes with an error.
	NextIDs(dst []ID) (int, error)
	// Stats reports the slow paths taken so far.
	Stats() Stats
}
