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
// refuses an unbounded lead and starts past every tick a predecessor can
// have used, or hold the id with a lease (Acquire).
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

// StaticConfig returns base with a snowlab.Fence for the count node ids
// base.Node..base.Node+count-1 that Static, FromEnv or Ordinal named (and
// base.Clock set, the default clock when nil): the configuration for one
// generator (a second built on it stops the first, as on a lease) that
// never repeats the IDs of a previous process on these node ids, when that
// process ran with the same Policy and MaxLead on the same clock, was
// killed however it was, and the clock has not been stepped back since.
//
// A static node id has no store to remember the last ID issued with it,
// so the fence's floor is where that ID can be at most: the end of the
// tick MaxLead (0 under Strict) after the clock's tick now. A Strict
// generator waits for the floor before its first ID, at most one tick (1
// ms in the default layout). A Monotonic one waits at most the same tick:
// it then stamps from the floor on, as far ahead of the clock as MaxLead
// lets it, and mints one tick's sequence per tick of the clock until the
// clock reaches the floor. The restart wait MaxLead implies is thus spent
// minting ahead, not refusing.
//
// Monotonic with MaxLead 0 is refused (ErrInvalidConfig): its lead has no
// bound (a generator ran 6.4 s ahead of the clock after 2 s at 17 M IDs/s),
// so no floor covers its predecessor's IDs. Set MaxLead, or hold the node
// ids with a lease (Acquire), whose reservation is kept durable ahead of
// every ID and survives a clock stepped back. When base.MaxFloorWait is 0
// it is raised, if need be, to MaxLead plus a tick, so that the fence's
// floor is never refused as too far ahead.
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
	var lead time.Duration
	if base.Policy == snowlab.Monotonic {
		if base.MaxLead == 0 {
			return base, fmt.Errorf("%w: nodeid: Monotonic with MaxLead 0 (unbounded) on static node id %d: a restarted process would mint IDs the previous one already issued; set MaxLead (a restart then starts that far ahead of the clock) or hold the node id with a lease",
				snowlab.ErrInvalidConfig, base.Node)
		}
		lead = base.MaxLead
	}
	if base.Clock == nil {
		base.Clock = clocksrc.Default()
	}
	base.Fence = snowlab.NewFenceFor(base.Node, count, staticFloor(l, lead, base.Clock.UnixNano()), math.MaxInt64)
	if base.MaxFloorWait == 0 {
		base.MaxFloorWait = max(snowlab.DefaultMaxFloorWait, lead+l.Unit)
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
