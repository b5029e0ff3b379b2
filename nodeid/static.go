package nodeid

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
)

// Static checks n against layout (the zero Layout is the default) and
// returns it. It is not a lease: nothing stops a second process from using
// the same id, so it suits a fleet whose ids are assigned by hand or by a
// deployment system that guarantees one holder each.
//
// Nor does it remember the last ID issued: a process restarted on the id
// repeats the IDs its predecessor stamped ahead of the clock, which a
// Monotonic generator with the default unbounded MaxLead does by seconds
// at full speed. Build generators on such ids with StaticConfig, which
// bounds every lead on a static id by StaticMaxLead (100 ms) and starts
// past it, or hold the id with a lease (Acquire).
func Static(n int, layout snowlab.Layout) (int, error) {
	l := layout.OrDefault()
	if n < 0 || n > l.MaxNode() {
		return 0, fmt.Errorf("%w: node %d, want 0..%d", snowlab.ErrInvalidNode, n, l.MaxNode())
	}
	return n, nil
}

// FromEnv reads a node id from the environment variable name, as Static:
// build generators on it with StaticConfig.
func FromEnv(name string, layout snowlab.Layout) (int, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return 0, fmt.Errorf("%w: $%s is not set", snowlab.ErrInvalidNode, name)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%w: $%s=%q is not a number", snowlab.ErrInvalidNode, name, v)
	}
	id, err := Static(n, layout)
	if err != nil {
		return 0, fmt.Errorf("$%s: %w", name, err)
	}
	return id, nil
}

// PodIndexEnv is the variable Ordinal reads first: set it from the pod's
// apps.kubernetes.io/pod-index label through the downward API.
const PodIndexEnv = "POD_INDEX"

// Ordinal returns the Kubernetes StatefulSet ordinal plus offset: the
// pod-index label when exposed as $POD_INDEX, else the N of a "name-N"
// hostname (os.Hostname when hostname is ""). It is not a lease: after a
// forced delete, or during a node partition, two pods can briefly share an
// ordinal, and nothing here notices. Use Dir or etcdlease where that
// matters. Nor does it remember the last ID issued: a restarted pod on the
// same ordinal must build its generators with StaticConfig (see Static).
func Ordinal(hostname string, offset int, layout snowlab.Layout) (int, error) {
	if v, ok := os.LookupEnv(PodIndexEnv); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%w: $%s=%q is not an ordinal", snowlab.ErrInvalidNode, PodIndexEnv, v)
		}
		return Static(n+offset, layout)
	}
	if hostname == "" {
		h, err := os.Hostname()
		if err != nil {
			return 0, fmt.Errorf("%w: no hostname: %v", snowlab.ErrInvalidNode, err)
		}
		hostname = h
	}
	name := strings.SplitN(hostname, ".", 2)[0]
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return 0, fmt.Errorf("%w: hostname %q is not a StatefulSet pod name (name-N)", snowlab.ErrInvalidNode, hostname)
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 0 || name[i+1] == '+' {
		return 0, fmt.Errorf("%w: hostname %q does not end in an ordinal", snowlab.ErrInvalidNode, hostname)
	}
	id, err := Static(n+offset, layout)
	if err != nil {
		return 0, fmt.Errorf("ordinal %d + offset %d: %w", n, offset, err)
	}
	return id, nil
}

// StaticMaxLead is the most a Monotonic generator on a static node id
// may run ahead of the clock (its Config.MaxLead), and how far ahead of
// the clock every start on a static node id begins, whatever its own
// Policy and MaxLead: see StaticConfig. It is one constant for every
// program built with this package, because a static node id has no store
// to say how far its previous process ran ahead: a bound its processes do
// not share would be no bound. Changing it is changing what every earlier
// run on a static id is assumed to have done: never lower it.
const StaticMaxLead = 100 * time.Millisecond

// StaticConfig returns base with a snowlab.Fence for the count node ids
// base.Node..base.Node+count-1 that Static, FromEnv or Ordinal named (and
// base.Clock set, the default clock when nil): the configuration for one
// generator (a second built on it stops the first, as on a lease) that
// never repeats an ID any earlier process on these node ids can have
// issued through StaticConfig, whatever that process's Policy and MaxLead
// and this one's, however it was killed, so long as the clock has not
// been stepped back since.
//
// A static node id has no store to remember the last ID issued with it,
// nor how far ahead of the clock its process ran, so the bound is global:
// a Monotonic generator on static ids runs at most StaticMaxLead (100 ms)
// ahead of the clock (MaxLead 0, unbounded, or above StaticMaxLead is
// refused with ErrInvalidConfig), a Strict one not at all, and so every
// ID an earlier process stamped lies at most 100 ms past the clock's
// reading now. The fence's floor is the end of that tick: the end of the
// tick StaticMaxLead after the clock's tick now. What a start costs:
//
//   - Strict waits for the floor before its first ID: 100 ms plus at most
//     a tick (101 ms in the default layout), once per process start.
//   - Monotonic with MaxLead 100 ms starts at once, from the floor, 100 ms
//     ahead of the clock, and mints one tick's sequence per tick of the
//     clock (4,096 IDs a ms in the default layout, 4.1 M a second) until
//     the clock catches up; with a smaller MaxLead it first waits for the
//     clock to come within it of the floor (100 ms less its lead).
//   - While running, a Monotonic generator may borrow up to 100 ms of
//     ticks ahead (409,600 IDs per node id in the default layout) for a
//     burst, and absorbs a clock stepped back by up to 100 ms plus its
//     MaxWait; a larger step is refused with snowlab.ErrClockBackwards.
//
// Where those bounds are too tight (a longer lead for bursts, restarts
// without the wait), hold the node ids with a lease (Acquire): its store
// keeps a reservation durable ahead of every ID, so a restart waits only
// for time really used, and a lead may be as long as the reservation.
// Ids named by hand with the same Policy and MaxLead before this bound
// existed (a lead above 100 ms) are not covered: stop such a process for
// its lead before the first start under this version.
//
// When base.MaxFloorWait is 0 it is raised, if need be, to StaticMaxLead
// plus a tick, so that the fence's floor is never refused as too far
// ahead; a MaxFloorWait given that is shorter (or negative) is refused
// with ErrInvalidConfig, since every start would then fail.
func StaticConfig(base snowlab.Config, count int) (snowlab.Config, error) {
	l := base.Layout.OrDefault()
	if err := l.Validate(); err != nil {
		return base, err
	}
	if count < 1 {
		return base, fmt.Errorf("%w: nodeid: %d node ids, want at least 1", snowlab.ErrInvalidNode, count)
	}
	if _, err := Static(base.Node, l); err != nil {
		return base, err
	}
	if _, err := Static(base.Node+count-1, l); err != nil {
		return base, fmt.Errorf("the last of %d node ids from %d: %w", count, base.Node, err)
	}
	if base.MaxLead < 0 {
		return base, fmt.Errorf("%w: nodeid: MaxLead %v is negative", snowlab.ErrInvalidConfig, base.MaxLead)
	}
	if base.Policy == snowlab.Monotonic {
		switch {
		case base.MaxLead == 0:
			return base, fmt.Errorf("%w: nodeid: Monotonic with MaxLead 0 (unbounded) on static node id %d: a restarted process would mint IDs the previous one already issued; set MaxLead, at most %v, or hold the node id with a lease",
				snowlab.ErrInvalidConfig, base.Node, StaticMaxLead)
		case base.MaxLead > StaticMaxLead:
			return base, fmt.Errorf("%w: nodeid: MaxLead %v on static node id %d is above %v (StaticMaxLead), the most any run on a static id may lead: a later run could not know to start past it; hold the node id with a lease for a longer lead",
				snowlab.ErrInvalidConfig, base.MaxLead, base.Node, StaticMaxLead)
		}
	}
	wait := StaticMaxLead + l.Unit // the longest a start waits for the floor
	if base.MaxFloorWait != 0 && base.MaxFloorWait < wait {
		return base, fmt.Errorf("%w: nodeid: MaxFloorWait %v on static node id %d: a start waits up to %v (StaticMaxLead and a tick) for the clock to pass every ID an earlier run can have stamped; leave it 0 or give at least that",
			snowlab.ErrInvalidConfig, base.MaxFloorWait, base.Node, wait)
	}
	if base.Clock == nil {
		base.Clock = clocksrc.Default()
	}
	base.Fence = snowlab.NewFenceFor(base.Node, count, staticFloor(l, StaticMaxLead, base.Clock.UnixNano()), math.MaxInt64)
	if base.MaxFloorWait == 0 {
		base.MaxFloorWait = max(snowlab.DefaultMaxFloorWait, wait)
	}
	return base, nil
}

// staticFloor is the end of the tick lead after the tick of now (Unix
// ns), in whole ticks as the generators count a lead: the end of the
// last tick a generator with that lead may have stamped by now. Before
// the epoch it is 0 (no floor: such a generator mints nothing); past the
// end of time it is held at math.MaxInt64.
func staticFloor(l snowlab.Layout, lead time.Duration, now int64) int64 {
	epoch, unit := l.Epoch.UnixNano(), int64(l.Unit)
	if now < epoch {
		return 0
	}
	ticks := (now-epoch)/unit + int64(lead/l.Unit) + 1
	if ticks > (math.MaxInt64-epoch)/unit {
		return math.MaxInt64
	}
	return epoch + ticks*unit
}
