package server

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/assert"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// Every error a generator, a lease or the server returns maps to the code
// that tells the caller what to do; wrapping does not change it.
func TestCodeFor(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want connect.Code
	}{
		{snowlab.ErrClockBackwards, connect.CodeUnavailable},
		{snowlab.ErrNoReservation, connect.CodeUnavailable},
		{nodeid.ErrLost, connect.CodeUnavailable},
		{ErrNoLease, connect.CodeUnavailable},
		{ErrDraining, connect.CodeUnavailable},
		{snowlab.ErrOverflow, connect.CodeFailedPrecondition},
		{snowlab.ErrInvalidID, connect.CodeInvalidArgument},
		{context.Canceled, connect.CodeCanceled},
		{context.DeadlineExceeded, connect.CodeDeadlineExceeded},
		{snowlab.ErrInvalidConfig, connect.CodeInternal},
		{snowlab.ErrInvalidNode, connect.CodeInternal},
		{snowlab.ErrInvalidLayout, connect.CodeInternal},
		{errors.New("something else"), connect.CodeInternal},
	} {
		wrapped := fmt.Errorf("atomicgen: node 3: %w", tc.err)
		assert.Equal(t, tc.want, codeFor(tc.err), "%v", tc.err)
		assert.Equal(t, tc.want, codeFor(wrapped), "%v", wrapped)
		ce := refusal(wrapped)
		assert.Equal(t, tc.want, ce.Code())
		assert.ErrorIs(t, ce, tc.err, "the refusal keeps the cause for errors.Is")
		assert.Contains(t, ce.Message(), "atomicgen: node 3", "the message reaches the caller")
	}
}

// wireCode is the code connect-go sends: a connect error's own, and a
// bare context error (connect-go returns the context's error as it is
// when the caller went away before the method ran) as Canceled or
// DeadlineExceeded, where connect.CodeOf says Unknown.
func TestWireCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want connect.Code
	}{
		{context.Canceled, connect.CodeCanceled},
		{fmt.Errorf("read: %w", context.Canceled), connect.CodeCanceled},
		{context.DeadlineExceeded, connect.CodeDeadlineExceeded},
		{connect.NewError(connect.CodeUnavailable, context.Canceled), connect.CodeUnavailable},
		{refusal(snowlab.ErrClockBackwards), connect.CodeUnavailable},
		{badCount(0), connect.CodeInvalidArgument},
		{errors.New("something else"), connect.CodeUnknown},
	} {
		assert.Equal(t, tc.want, wireCode(tc.err), "%v", tc.err)
	}
	assert.Equal(t, connect.CodeUnknown, connect.CodeOf(context.Canceled), "what the interceptor read before")
}
