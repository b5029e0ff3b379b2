package snowlab

import "errors"

// Errors returned by this module. Every error a caller sees wraps one of
// these with the offending value, so test for them with errors.Is.
var (
	// ErrClockBackwards: the clock went back further than Config.MaxWait,
	// or it did not advance (nor come back) within the bounded wait.
	ErrClockBackwards = errors.New("snowlab: clock moved backwards")
	// ErrOverflow: a timestamp or sequence outside its field, such as a
	// clock before the epoch or past the layout's horizon.
	ErrOverflow = errors.New("snowlab: value outside the layout's window")
	// ErrInvalidNode: a node id outside 0..Layout.MaxNode().
	ErrInvalidNode = errors.New("snowlab: node id out of range")
	// ErrInvalidLayout: a Layout that fails Validate.
	ErrInvalidLayout = errors.New("snowlab: invalid layout")
	// ErrInvalidID: text, JSON or a database value that is not an ID.
	ErrInvalidID = errors.New("snowlab: invalid ID")
	// ErrNoReservation: the next ID would carry a time past the node id's
	// reservation (Fence.Until), or the reservation was revoked because
	// the lease on the node id was lost.
	ErrNoReservation = errors.New("snowlab: outside the node id's reservation")
	// ErrInvalidConfig: a configuration field other than the layout and the
	// node id is out of range (an unknown policy or mode, a negative
	// MaxLead or shard count, a lease window that cannot be kept), or an
	// argument that cannot describe what it names (a time interval that
	// ends before it starts).
	ErrInvalidConfig = errors.New("snowlab: invalid configuration")
)
