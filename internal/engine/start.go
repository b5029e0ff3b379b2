package engine

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab"
)

// Prepare is the common start of every generator: it compiles cfg, checks
// that nodes node ids from cfg.Node on fit the layout and that the fence
// holds them, waits for the clock to pass everything the fence's node ids
// have used so far (waitStart, which may refuse), and only then takes a
// grant on them, which stops any earlier generator on them: a constructor
// that refuses leaves the earlier generator minting.
func Prepare(cfg snowlab.Config, nodes int) (*Rules, error) {
	r, err := Compile(cfg)
	if err != nil {
		return nil, err
	}
	if err := CheckNodes(r.Layout(), cfg.Node, nodes); err != nil {
		return nil, err
	}
	if r.fence == nil {
		return r, nil
	}
	if err := r.fence.CheckGrant(cfg.Node, nodes); err != nil {
		return nil, err
	}
	start := r.fence.LastEnd()
	if err := r.waitStart(start, true); err != nil {
		return nil, err
	}
	if r.grant, err = r.fence.Grant(cfg.Node, nodes); err != nil {
		return nil, err // revoked meanwhile: no grant was taken
	}
	// Read after the grant stopped the earlier generators: nothing they
	// hand out from now on ends after it. When they claimed a tick while
	// this one waited (a Strict one, at most the tick its clock was in),
	// wait for that too, within MaxFloorWait, but refuse no longer: the
	// earlier ones are stopped now, and InitialState spends every tick
	// before the start, so the generator is correct however far behind
	// its clock is; its first calls wait or refuse as they would after a
	// clock step back.
	if r.startNs = r.fence.LastEnd(); r.startNs > start {
		_ = r.waitStart(r.startNs, false)
	}
	return r, nil
}

// InitialState is the state word a new generator starts from. With a
// fence, it claims every tick before the start as spent, so that no ID,
// whatever the clock says later, carries a time the previous holder of the
// node id, or an earlier generator on the same lease, may have used.
func (r *Rules) InitialState() uint64 {
	if r.startNs <= r.epochNs {
		return 0
	}
	first := (r.startNs - r.epochNs + r.unitNs - 1) / r.unitNs // first tick starting at or after the start
	if first > r.maxTick+1 {
		first = r.maxTick + 1
	}
	return r.pack(first-1, r.seqCap) // spent for every space, which holds at most seqCap values
}

// waitStart waits, when the clock is behind start (the fence's LastEnd:
// at least the floor the previous holder left, or the last tick an
// earlier generator on the lease claimed), until it passes it: a
// successor must not mint in time its predecessor may have used. A
// Monotonic generator waits only until the start is within its MaxLead
// (not at all when the lead is unbounded). When the start is further
// ahead than MaxFloorWait, or the clock does not pass it within
// MaxFloorWait, it returns ErrClockBackwards, so that a predecessor with
// a broken clock cannot freeze a start for an hour; without refuse it
// just stops waiting then (its error is only for the caller to drop).
func (r *Rules) waitStart(start int64, refuse bool) error {
	ns := r.clock.UnixNano()
	if ns >= start {
		return nil
	}
	if r.startWait < 0 || time.Duration(start-ns) > r.startWait {
		if !refuse {
			return nil
		}
		return fmt.Errorf("%w: the clock is %v behind the node id's start (%v: the floor the previous holder left, or the last tick an earlier generator on the lease used), more than MaxFloorWait %v",
			snowlab.ErrClockBackwards, time.Duration(start-ns), time.Unix(0, start).UTC(), max(r.startWait, 0))
	}
	if r.monotonic {
		// A logical clock may start ahead of the clock, within its lead:
		// the ticks before the start are spent (InitialState), so it
		// borrows from the start on instead of waiting for it.
		if !r.leadBound {
			return nil
		}
		start -= r.leadTicks * r.unitNs
	}
	deadline := addSat(elapsed(), int64(r.startWait))
	for ns < start {
		left := deadline - elapsed()
		if left <= 0 {
			// Read the clock once more before refusing, as a call's
			// waits do: a caller descheduled between its last reading
			// and the deadline should not blame the clock.
			if ns = r.clock.UnixNano(); ns >= start {
				return nil
			}
			return fmt.Errorf("%w: the clock did not pass the node id's start (%v: the previous holder's floor or an earlier generator's last tick) within %v",
				snowlab.ErrClockBackwards, time.Unix(0, start).UTC(), r.startWait)
		}
		pause(min(start-ns, left))
		ns = r.clock.UnixNano()
	}
	return nil
}
