package engine

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/mono"
)

// Prepare is the common start of every generator: it compiles cfg, checks
// that nodes node ids from cfg.Node on fit the layout, and waits for the
// clock to pass the fence's floor (WaitFloor).
func Prepare(cfg snowlab.Config, nodes int) (*Rules, error) {
	r, err := Compile(cfg)
	if err != nil {
		return nil, err
	}
	if err := CheckNodes(r.Layout(), cfg.Node, nodes); err != nil {
		return nil, err
	}
	if err := r.WaitFloor(); err != nil {
		return nil, err
	}
	return r, nil
}

// InitialState is the state word a new generator starts from. With a
// fence whose floor is set, it claims every tick before the floor as spent,
// so that no ID, whatever the clock says later, carries a time the
// previous holder of the node id may have used.
func (r *Rules) InitialState() uint64 {
	if r.fence == nil || r.fence.Floor() <= r.epochNs {
		return 0
	}
	first := (r.fence.Floor() - r.epochNs + r.unitNs - 1) / r.unitNs // first tick starting at or after the floor
	if first > r.maxTick+1 {
		first = r.maxTick + 1
	}
	return r.pack(first-1, r.seqCap) // spent for every space, which holds at most seqCap values
}

// WaitFloor waits, when the clock is behind the fence's floor (the previous
// holder's reservation), until it passes it: a successor must not mint in
// time its predecessor may have used. It refuses with ErrClockBackwards
// when the floor is further ahead than MaxFloorWait, so that a predecessor
// with a broken clock cannot freeze a start for an hour.
func (r *Rules) WaitFloor() error {
	if r.fence == nil {
		return nil
	}
	floor := r.fence.Floor()
	ns := r.clock.UnixNano()
	if ns >= floor {
		return nil
	}
	if r.floorWait < 0 || time.Duration(floor-ns) > r.floorWait {
		return fmt.Errorf("%w: the clock is %v behind the previous holder's reservation (until %v), more than MaxFloorWait %v",
			snowlab.ErrClockBackwards, time.Duration(floor-ns), time.Unix(0, floor).UTC(), max(r.floorWait, 0))
	}
	deadline := mono.Now() + int64(r.floorWait)
	for ns < floor {
		left := deadline - mono.Now()
		if left <= 0 {
			return fmt.Errorf("%w: the clock did not pass the previous holder's reservation (until %v) within %v",
				snowlab.ErrClockBackwards, time.Unix(0, floor).UTC(), r.floorWait)
		}
		pause(min(floor-ns, left))
		ns = r.clock.UnixNano()
	}
	return nil
}
