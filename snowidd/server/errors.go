package server

import (
	"context"
	"errors"
	"fmt"

	"connectrpc.com/connect"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// Errors of the service itself, besides the library's. Both are answered
// Unavailable: another replica can serve the call.
var (
	// ErrDraining: the replica is shutting down (SIGTERM) and takes no
	// new minting calls.
	ErrDraining = errors.New("snowidd: draining: the replica is shutting down")
	// ErrNoLease: the replica holds no node ids (still acquiring a lease,
	// or its lease was lost and it is acquiring another).
	ErrNoLease = errors.New("snowidd: no lease held")
)

// codeFor is the status a refused call answers with: what the caller
// should do next, not where the error came from.
//
//   - Unavailable, retry another replica: the clock moved backwards past
//     the generator's MaxWait, the reservation ran out or the lease was
//     lost (the replica stops minting rather than risk time a successor may
//     use), no lease is held yet, or the replica is draining.
//   - FailedPrecondition: the clock is outside the layout's time window
//     (before the epoch or past the horizon). Every replica with the same
//     layout refuses the same way; retrying does not help.
//   - InvalidArgument: a malformed ID given to Decode.
//   - Canceled, DeadlineExceeded: the caller's context ended first (a
//     generator wait is bounded, but a caller's deadline may be shorter).
//   - Internal: anything else is a bug or a bad configuration
//     (ErrInvalidConfig, ErrInvalidNode, ErrInvalidLayout), which the
//     command refuses at start-up, so it should never be seen.
func codeFor(err error) connect.Code {
	switch {
	case errors.Is(err, snowlab.ErrClockBackwards),
		errors.Is(err, snowlab.ErrNoReservation),
		errors.Is(err, nodeid.ErrLost),
		errors.Is(err, ErrNoLease),
		errors.Is(err, ErrDraining):
		return connect.CodeUnavailable
	case errors.Is(err, snowlab.ErrOverflow):
		return connect.CodeFailedPrecondition
	case errors.Is(err, snowlab.ErrInvalidID):
		return connect.CodeInvalidArgument
	case errors.Is(err, context.Canceled):
		return connect.CodeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return connect.CodeDeadlineExceeded
	}
	return connect.CodeInternal
}

// wireCode is the code connect-go answers a call that returned err
// with. It is connect.CodeOf but for a bare context error, which
// connect.CodeOf calls Unknown: connect-go returns the context's error
// as it is for a call whose caller went away before its method ran, and
// sends it as Canceled or DeadlineExceeded.
func wireCode(err error) connect.Code {
	if ce := new(connect.Error); errors.As(err, &ce) {
		return ce.Code()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return connect.CodeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return connect.CodeDeadlineExceeded
	}
	return connect.CodeUnknown
}

// refusal wraps err for the wire with its code. The library's messages
// name the values at fault (how far the clock moved, the reservation's
// end) and carry no secrets, so they go to the caller as they are.
func refusal(err error) *connect.Error {
	return connect.NewError(codeFor(err), err)
}

// badCount is NextIDs' answer to a count outside 1..MaxBatch.
func badCount(count uint32) *connect.Error {
	return connect.NewError(connect.CodeInvalidArgument,
		fmt.Errorf("snowidd: count %d is out of range: want 1..%d", count, MaxBatch))
}
