package snowlab

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Layout says how the 63 usable bits of an ID are split and what the time
// field counts. The zero Layout means DefaultLayout wherever a Layout is
// accepted.
type Layout struct {
	TimeBits, NodeBits, SeqBits uint
	// Unit is the length of one tick of the time field.
	Unit time.Duration
	// Epoch is the instant the time field counts from.
	Epoch time.Time
}

// DefaultLayout is 41 bits of milliseconds since 2024-01-01T00:00:00Z,
// 10 bits of node and 12 bits of sequence. Generators never read this
// variable: a zero Layout is resolved to a fresh copy of the default, so
// changing DefaultLayout cannot change a running generator.
var DefaultLayout = defaultLayout()

func defaultLayout() Layout {
	return Layout{
		TimeBits: 41,
		NodeBits: 10,
		SeqBits:  12,
		Unit:     time.Millisecond,
		Epoch:    time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

// IsZero reports whether l is the zero Layout, which stands for the default.
func (l Layout) IsZero() bool {
	return l.TimeBits == 0 && l.NodeBits == 0 && l.SeqBits == 0 && l.Unit == 0 && l.Epoch.IsZero()
}

// OrDefault returns l, or the default layout when l is the zero Layout.
func (l Layout) OrDefault() Layout {
	if l.IsZero() {
		return defaultLayout()
	}
	return l
}

// Validate reports, wrapped in ErrInvalidLayout, the first reason l cannot
// lay out an ID: the three fields must sum to 63 bits with at least one bit
// each, Unit must be positive, Epoch must be set, and the whole window
// (2^TimeBits ticks) must fit in a time.Duration and in Unix nanoseconds, so
// that every instant the layout can encode is also one a clock can report.
// The node and sequence fields must also leave their count of values
// (MaxNode()+1, MaxSeq()+1) within an int: at most 62 bits where int has 64
// bits, which the sum already implies, and at most 30 where int has 32, so
// that a 32-bit program refuses a layout it would otherwise truncate.
// The zero Layout is valid (it is the default).
func (l Layout) Validate() error { return l.validate(strconv.IntSize) }

// maxFieldBits is the widest node or sequence field Validate accepts in a
// program whose int has intBits bits: the field's count of values,
// 2^bits, must be an int.
func maxFieldBits(intBits int) uint { return uint(intBits) - 2 }

// validate is Validate for a program whose int has intBits bits, so that
// the 32-bit rule is tested on 64-bit machines too.
func (l Layout) validate(intBits int) error {
	l = l.OrDefault()
	switch {
	case l.TimeBits == 0 || l.NodeBits == 0 || l.SeqBits == 0:
		return fmt.Errorf("%w: every field needs at least 1 bit, got time %d, node %d, seq %d",
			ErrInvalidLayout, l.TimeBits, l.NodeBits, l.SeqBits)
	case l.TimeBits > 63 || l.NodeBits > 63 || l.SeqBits > 63:
		// Checked before the sum, which a huge width could wrap back to 63.
		return fmt.Errorf("%w: a field is wider than 63 bits, got time %d, node %d, seq %d",
			ErrInvalidLayout, l.TimeBits, l.NodeBits, l.SeqBits)
	case l.TimeBits+l.NodeBits+l.SeqBits != 63:
		return fmt.Errorf("%w: time %d + node %d + seq %d = %d bits, want 63",
			ErrInvalidLayout, l.TimeBits, l.NodeBits, l.SeqBits, l.TimeBits+l.NodeBits+l.SeqBits)
	case l.NodeBits > maxFieldBits(intBits):
		return fmt.Errorf("%w: node field of %d bits: its %d node ids do not fit a %d-bit int (at most %d bits)",
			ErrInvalidLayout, l.NodeBits, uint64(1)<<l.NodeBits, intBits, maxFieldBits(intBits))
	case l.SeqBits > maxFieldBits(intBits):
		return fmt.Errorf("%w: seq field of %d bits: its %d sequence values do not fit a %d-bit int (at most %d bits)",
			ErrInvalidLayout, l.SeqBits, uint64(1)<<l.SeqBits, intBits, maxFieldBits(intBits))
	case l.Unit <= 0:
		return fmt.Errorf("%w: unit %v is not positive", ErrInvalidLayout, l.Unit)
	case l.Epoch.IsZero():
		return fmt.Errorf("%w: epoch is not set", ErrInvalidLayout)
	}
	if l.TimeBits >= 63 || uint64(1)<<l.TimeBits > uint64(math.MaxInt64/int64(l.Unit)) {
		return fmt.Errorf("%w: 2^%d ticks of %v overflow a time.Duration", ErrInvalidLayout, l.TimeBits, l.Unit)
	}
	window := time.Duration(int64(1)<<l.TimeBits) * l.Unit
	minNs, maxNs := time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64)
	if l.epoch().Before(minNs) || l.epoch().Add(window).After(maxNs) {
		return fmt.Errorf("%w: epoch %v plus a window of %v leaves the range of Unix nanoseconds",
			ErrInvalidLayout, l.epoch(), window)
	}
	return nil
}

// MaxNode is the largest node id the layout can hold.
func (l Layout) MaxNode() int { return 1<<l.OrDefault().NodeBits - 1 }

// MaxSeq is the largest sequence number the layout can hold; a node mints at
// most MaxSeq()+1 IDs per tick.
func (l Layout) MaxSeq() int { return 1<<l.OrDefault().SeqBits - 1 }

// MaxTick is the largest value of the time field.
func (l Layout) MaxTick() int64 { return 1<<l.OrDefault().TimeBits - 1 }

// Horizon is the first instant the layout can no longer encode.
func (l Layout) Horizon() time.Time {
	l = l.OrDefault()
	return l.epoch().Add(time.Duration(int64(1)<<l.TimeBits) * l.Unit)
}

// TimeLeft is the time from t until the horizon: how long a generator on
// this layout can still mint, read from its clock at t. It is negative once
// the horizon has passed, and held at the largest time.Duration (about 292
// years) when the horizon is further off than that, as time.Time.Sub is.
func (l Layout) TimeLeft(t time.Time) time.Duration { return l.Horizon().Sub(t) }

// Compose builds the ID for instant t (truncated to the layout's Unit), node
// and seq. A node outside 0..MaxNode is ErrInvalidNode; a t before the epoch
// or at or after the horizon, or a seq outside 0..MaxSeq, is ErrOverflow.
func (l Layout) Compose(t time.Time, node, seq int) (ID, error) {
	l = l.OrDefault()
	if err := l.Validate(); err != nil {
		return 0, err
	}
	if node < 0 || node > l.MaxNode() {
		return 0, fmt.Errorf("%w: node %d, want 0..%d", ErrInvalidNode, node, l.MaxNode())
	}
	if seq < 0 || seq > l.MaxSeq() {
		return 0, fmt.Errorf("%w: sequence %d, want 0..%d", ErrOverflow, seq, l.MaxSeq())
	}
	if t.Before(l.epoch()) || !t.Before(l.Horizon()) {
		return 0, fmt.Errorf("%w: time %v is outside [%v, %v)", ErrOverflow, t.Round(0), l.epoch(), l.Horizon())
	}
	tick := int64(t.Sub(l.epoch()) / l.Unit)
	return ID(tick<<(l.NodeBits+l.SeqBits) | int64(node)<<l.SeqBits | int64(seq)), nil
}

// Parts is an ID taken apart.
type Parts struct {
	Time time.Time // start of the ID's tick, in the epoch's location
	Node int
	Seq  int
}

// Decode takes id apart. It is the inverse of Compose: Compose(Decode(id))
// gives id back for every valid id. A negative id is not valid; Decode reads
// its low 63 bits.
func (l Layout) Decode(id ID) Parts {
	l = l.OrDefault()
	u := uint64(id) &^ (1 << 63)
	tick := int64(u >> (l.NodeBits + l.SeqBits))
	return Parts{
		Time: l.epoch().Add(time.Duration(tick) * l.Unit),
		Node: int(u>>l.SeqBits) & l.MaxNode(),
		Seq:  int(u) & l.MaxSeq(),
	}
}

// epoch is Epoch without a monotonic clock reading (an Epoch taken from
// time.Now() has one), so that times derived from it and printed in
// messages show the wall time only.
func (l Layout) epoch() time.Time { return l.Epoch.Round(0) }
