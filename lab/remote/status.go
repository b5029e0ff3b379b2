package remote

import (
	"errors"
	"strconv"
)

// StatusError is a call the replica answered with an error status: Code
// is its name as the Connect protocol writes it ("unavailable",
// "invalid_argument"), whichever protocol carried it (gRPC's numbers
// read as their names).
type StatusError struct {
	Code    string
	Message string
	// grpcStatus is the number a gRPC or gRPC-Web answer gave ("" for
	// the Connect protocol), which the error's text quotes.
	grpcStatus string
}

func (e *StatusError) Error() string {
	if e.grpcStatus != "" {
		return "grpc-status " + e.grpcStatus + ": " + e.Message
	}
	return e.Code + ": " + e.Message
}

// CodeOf is the status code of the replica's answer in err's chain ("" when
// err carries none: a call that failed on the wire, nil).
func CodeOf(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return ""
}

// grpcCodes are gRPC's status codes by number, named as Connect names them.
var grpcCodes = [...]string{"ok", "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found",
	"already_exists", "permission_denied", "resource_exhausted", "failed_precondition", "aborted",
	"out_of_range", "unimplemented", "internal", "unavailable", "data_loss", "unauthenticated"}

// grpcCodeName names gRPC status s, "code N" for a number it does not know.
func grpcCodeName(s string) string {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < len(grpcCodes) {
		return grpcCodes[n]
	}
	return "code " + s
}
