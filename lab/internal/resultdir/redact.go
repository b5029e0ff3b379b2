package redact

import (
	"errors"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/snowlab/snowlab/nodeid"
)

// Args returns a copy of a command line with every argument described by
// nodeid.Redact; nil stays nil.
func Args(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = nodeid.Redact(a)
	}
	return out
}

// quoted is a piece of a message in double quotes or backquotes, as %q,
// "%s" and `%s` write it.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"` + "|`[^`]*`")

// parseError is a pgx parse error with a message that quotes nothing of
// the DSN; errors.Is and errors.As still see the driver's error.
type parseError struct {
	msg string
	err error
}

func (e *parseError) Error() string { return e.msg }
func (e *parseError) Unwrap() error { return e.err }

// Error is err, unless it is pgx's error for a DSN that does not parse:
// that one quotes the DSN, with only the passwords pgx recognises masked,
// and its reason quotes the piece at fault (a piece of a password with a
// space in it). It becomes "the DSN does not parse: REASON", every quoted
// piece of the reason left out (as pglease does).
func Error(err error) error {
	var pce *pgconn.ParseConfigError
	if !errors.As(err, &pce) {
		return err
	}
	bare := *pce
	bare.ConnString = ""
	reason := strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	return &parseError{msg: "the DSN does not parse: " + quoted.ReplaceAllString(reason, "…"), err: err}
}
