package snowlab

import (
	"fmt"
	"time"
)

// Range returns the IDs [lo, hi) of the time interval [from, to): every
// node and every sequence of the ticks it covers, so that the SQL predicate
// id >= lo AND id < hi selects the rows whose IDs were minted in it, and an
// interval that ends where the next begins shares no ID with it.
//
// An ID carries the start of its tick, and Range is exact in those terms:
// an ID is in [lo, hi) if and only if Decode(id).Time lies in [from, to).
// That is what a SQL user gets from created_at >= from AND created_at < to
// on a timestamp stored at the ID's resolution. At tick boundaries it is
// the interval itself. A from or to inside a tick therefore rounds up to
// the next boundary: the tick that holds from is left out (its IDs carry a
// time before from) and the tick that holds to is taken in (its IDs carry
// a time before to). A Strict generator's ID carries its creation time
// truncated to the tick, so the range holds the IDs created in [from', to'),
// from and to rounded up to whole ticks.
//
// from == to (or two instants inside one tick) is the empty range lo == hi.
// A from before the epoch, or a to that rounds up to the horizon or past
// it, is ErrOverflow: no ID lies there, and hi would need the value 2^63,
// which no ID holds (select the layout's last tick with id >= lo alone).
// A to before from is ErrInvalidConfig. A layout that fails Validate is
// ErrInvalidLayout.
func (l Layout) Range(from, to time.Time) (lo, hi ID, err error) {
	l = l.OrDefault()
	if err := l.Validate(); err != nil {
		return 0, 0, err
	}
	from, to = from.Round(0), to.Round(0)
	if to.Before(from) {
		return 0, 0, fmt.Errorf("%w: reversed interval: from %s is after to %s", ErrInvalidConfig, rfc3339(from), rfc3339(to))
	}
	if from.Before(l.epoch()) {
		return 0, 0, fmt.Errorf("%w: from %s is before the epoch %s", ErrOverflow, rfc3339(from), rfc3339(l.epoch()))
	}
	// The last tick that can start an exclusive bound is MaxTick: hi is
	// then the first ID of the last tick, and a later bound would be 2^63.
	last := l.epoch().Add(time.Duration(l.MaxTick()) * l.Unit)
	if to.After(last) {
		return 0, 0, fmt.Errorf("%w: to %s is past %s, the last tick an exclusive bound can end at (the horizon is %s)",
			ErrOverflow, rfc3339(to), rfc3339(last), rfc3339(l.Horizon()))
	}
	shift := l.NodeBits + l.SeqBits
	return ID(l.ceilTick(from) << shift), ID(l.ceilTick(to) << shift), nil
}

// ceilTick is the first tick that starts at or after t, for t in
// [epoch, epoch + MaxTick ticks]: t.Sub cannot saturate there, since
// Validate keeps the whole window within a time.Duration.
func (l Layout) ceilTick(t time.Time) int64 {
	d := t.Sub(l.epoch())
	tick := int64(d / l.Unit)
	if d%l.Unit != 0 {
		tick++
	}
	return tick
}

func rfc3339(t time.Time) string { return t.Format(time.RFC3339Nano) }
