package subject

import (
	"github.com/snowlab/snowlab"
)

// Func is a subject for a generator of your own: next mints one 64-bit
// ID; fill, when not nil, is its batch call, minting up to len(dst) IDs
// into dst and returning how many it wrote (fewer only with an error).
// One generator serves every goroutine of a run, so next and fill must be
// safe for concurrent use.
//
// The subject promises no order and has no per-tick ceiling, and its IDs
// are read as snowlab's default layout (41-bit milliseconds since
// 2024-01-01Z, 10-bit node, 12-bit sequence) for the lead over the clock
// and the ticks a burst spans. Set the fields that say more before running
// it: Order (OrderCaller when each goroutine's IDs increase), Strict with
// PerTick, Tick and Nodes (a ceiling the lab then checks), Decode for
// another layout, Limit (subject.LimitClockCAS to read it against the
// physical limit), Library and Note for the report.
func Func(name string, next func() (uint64, error), fill func(dst []uint64) (int, error)) Subject {
	m := funcMinter{next: next, fill: fill}
	s := Subject{
		Name: name, Nodes: 1, Order: OrderNone, Batch: fill != nil,
		Decode: layoutDecoder(snowlab.DefaultLayout),
		New: func() (Minter, error) {
			if fill != nil {
				return funcFiller{m}, nil
			}
			return m, nil
		},
	}
	return s
}

type funcMinter struct {
	next func() (uint64, error)
	fill func([]uint64) (int, error)
}

func (m funcMinter) Next() (ID, error) {
	v, err := m.next()
	return ID{Lo: v}, err
}

// funcFiller is a funcMinter with a batch call: a Filler only when there
// is one, so that the lab runs the burst through it only then.
type funcFiller struct{ funcMinter }

func (m funcFiller) Fill(dst []ID) (int, error) { return fillWide(dst, m.fill) }
