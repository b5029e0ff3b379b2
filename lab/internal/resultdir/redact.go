package resultdir

// What a result records or the lab prints holds no credential: a command
// line going into a result file, a driver's error. A result file is
// committed and shared; a password in it is a leak that no later commit
// can take back. What a spec, DSN or URL may show is nodeid.Redact's to
// say: RedactArgs applies it to each argument of a command line, and a
// program names a DSN or URL it prints as nodeid.Redact gives it.
// RedactError rewrites pgx's parse errors, which quote the DSN (and pieces
// of it), so that a message holds none of it.

import (
	"errors"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/snowlab/snowlab/nodeid"
)

// RedactArgs returns a copy of a command line with every argument described by
// nodeid.Redact; nil stays nil.
func RedactArgs(args []string) []string {
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

// RedactError is err, unless it is pgx's error for a DSN that does not parse:
// that one quotes the DSN, with only the passwords pgx recognises masked,
// and its reason quotes the piece at fault (a piece of a password with a
// space in it). It becomes "the DSN does not parse: REASON", every quoted
// piece of the reason left out (as pglease does).
func RedactError(err error) error {
	var pce *pgconn.ParseConfigError
	if !errors.As(err, &pce) {
		return err
	}
	bare := *pce
	bare.ConnString = ""
	reason := strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	return &parseError{msg: "the DSN does not parse: " + quoted.ReplaceAllString(reason, "…"), err: err}
}
