package engine

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/mono"
)

// Prepare is the common start of every generator: it compiles cfg, checks
// that nodes node ids from cfg.Node on fit the layout, takes a grant on
// them from the fence (which must hold them, and which stops any earlier
// generator on them), and waits for the clock to pass everything the
// fence's node ids have used so far (WaitFloor).
func Prepare(cfg snowlab.Config, nodes int) (*Rules, error) {
	r, err := Compile(cfg)
	if err != nil {
		return nil, err
	}
	if err := CheckNodes(r.Layout(), cfg.Node, nodes); err != nil {
		return nil, err
	}
	if r.fence != nil {
		if r.grant, err = r.fence.Grant(cfg.Node, nodes); err != nil {
			return nil, err
		}
		// Read after the grant stopped the earlier generators: nothing
		// they hand out from now on ends after it.
		r.floorNs = r.fence.LastEnd()
	}
	if err := r.WaitFloor(); err != nil {
		return nil, err
	}
	return r, nil
}

// InitialState is the state word a new generator starts from. With a
// fence, it claims every tick before the floor as spent, so that no ID,
// whatever the clock says later, carries a time the previous holder of the
// node id, or an earlier generator on the same lease, may have used.
func (r *Rules) InitialState() uint64 {
	if r.floorNs <= r.epochNs {
		return 0
	}
	first := (r.floorNs - r.epochNs + r.unitNs - 1) / r.unitNs // first tick starting at or after the floor
	if first > r.maxTick+1 {
		first = r.maxTick + 1
	}
	return r.pack(first-1, r.seqCap) // spent for every space, which holds at most seqCap values
}

// WaitFloor waits, when the clock is behind the floor (the previous
// holder's reservation, or the last tick an earlier generator on the lease
// claimed), until it passes it: a successor must not mint in time its
// predecessor may have used. A Monotonic generator waits only until the
// floor is within its MaxLead (not at all when the lead is unbounded). It
// refuses with ErrClockBackwards when the floor is further ahead than
// MaxFloorWait, so that a predecessor with a broken clock cannot freeze a
// start for an hour.
func (r *Rules) WaitFloor() error {
	if r.grant == nil {
		return nil
	}
	floor := r.floorNs
	ns := r.clock.UnixNano()
	if ns >= floor {
		return nil
	}
	if r.floorWait < 0 || time.Duration(floor-ns) > r.floorWait {
		return fmt.Errorf("%w: the clock is %v behind the node id's reservation floor (%v: what the previous holder reserved or an earlier generator on the lease used), more than MaxFloorWait %v",
			snowlab.ErrClockBackwards, time.Duration(floor-ns), time.Unix(0, floor).UTC(), max(r.floorWait, 0))
	}
	if r.monotonic {
		// A logical clock may start ahead of the clock, within its lead:
		// the ticks before the floor are spent (InitialState), so it
		// borrows from the floor on instead of waiting for it.
		if !r.leadBound {
			return nil
		}
		floor -= r.leadTicks * r.unitNs
	}
	deadline := addSat(mono.Now(), int64(r.floorWait))
	for ns < floor {
		left := deadline - mono.Now()
		if left <= 0 {
			return fmt.Errorf("%w: the clock did not pass the node id's reservation floor (%v) within %v",
				snowlab.ErrClockBackwards, time.Unix(0, floor).UTC(), r.floorWait)
		}
		pause(min(floor-ns, left))
		ns = r.clock.UnixNano()
	}
	return nil
}
