package engine

// action is what a call may do next.
type action uint8

const (
	issue      action = iota // install plan.next, hand out plan.count IDs
	waitTick                 // wait until the clock reaches plan.tick
	waitRewind               // the clock is behind the last tick: wait it out
	refuse                   // the clock is too far behind: ErrClockBackwards
	overflow                 // the tick is outside the layout's window
	unreserved               // the tick is past the node id's reservation
	waitFence                // Monotonic: wait for the reservation to reach plan.tick
)

type plan struct {
	act   action
	tick  int64  // issue: first ID's tick; waits: tick to wait for; else the tick at fault
	n     uint64 // issue: first ID's count within its tick
	count int    // issue: how many IDs
	next  uint64 // issue: the state word to install
}

// plan decides what a call that wants want IDs may do, given the state word
// s it loaded and the clock reading now (a tick) it took after loading s.
// It is pure: the same inputs give the same plan, whatever the generator.
func (r *Rules) plan(s uint64, now int64, want int, cap uint64) plan {
	if now < 0 || now > r.maxTick {
		return plan{act: overflow, tick: now}
	}
	t, n := r.unpack(s)
	if n > cap {
		n = cap // fetch-add callers overshoot a spent tick; the tick is just spent
	}
	if now > t {
		t, n = now, 0
	}
	if r.monotonic {
		return r.planMonotonic(t, n, now, want, cap)
	}
	if now < t {
		if r.maxWaitNs < 0 || (t-now)*r.unitNs > r.maxWaitNs {
			return plan{act: refuse, tick: t}
		}
		return plan{act: waitRewind, tick: t}
	}
	if n == cap {
		if t == r.maxTick {
			return plan{act: overflow, tick: t + 1}
		}
		return plan{act: waitTick, tick: t + 1}
	}
	if r.fenced(t) {
		return plan{act: unreserved, tick: t}
	}
	count := uint64(want)
	if free := cap - n; count > free {
		count = free
	}
	return plan{act: issue, tick: t, n: n, count: int(count), next: r.pack(t, n+count)}
}

// planMonotonic runs the logical clock max(last, now): it hands out the rest
// of tick t and then borrows whole ticks ahead, up to the layout's last
// tick, the end of the reservation and, when MaxLead is set, now+MaxLead.
func (r *Rules) planMonotonic(t int64, n uint64, now int64, want int, cap uint64) plan {
	limit := r.maxTick
	if reserved := r.lastReserved(); reserved < limit {
		limit = reserved
	}
	if r.leadBound && now+r.leadTicks < limit {
		limit = now + r.leadTicks
	}
	if t > limit || (t == limit && n == cap) {
		next := t
		if n == cap {
			next++
		}
		switch {
		case next > r.maxTick:
			return plan{act: overflow, tick: next}
		case next > r.lastReserved() && r.revoked():
			return plan{act: unreserved, tick: next}
		case next > r.lastReserved():
			// The logical clock has used the reservation up (IDs asked
			// for faster than the sequence runs, or a refresh late): the
			// lease moves it forward every Refresh. Wait for that, as for
			// a tick, within MaxWait.
			return plan{act: waitFence, tick: next}
		}
		// Ahead of the clock by MaxLead: wait until issuing the next
		// free tick would be within the lead again, unless that is
		// further off than a wait may last (MaxWait plus the tick): then
		// the clock went back under the logical clock, and waiting would
		// block for as long as the step.
		target := next - r.leadTicks
		if (target-now-1)*r.unitNs > max(r.maxWaitNs, 0) {
			return plan{act: refuse, tick: next}
		}
		return plan{act: waitTick, tick: target}
	}
	avail := uint64(limit-t)*cap + (cap - n)
	count := uint64(want)
	if count > avail {
		count = avail
	}
	if n == cap {
		t, n = t+1, 0
	}
	end := n + count - 1 // the last ID's offset from the start of tick t
	return plan{act: issue, tick: t, n: n, count: int(count),
		next: r.pack(t+int64(end/cap), end%cap+1)}
}
