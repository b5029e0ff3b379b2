package snowidcli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// parseInstant reads an interval bound: RFC 3339 (fractions of a second
// allowed, any offset) or an RFC 3339 full-date, which is midnight UTC.
func parseInstant(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("want RFC 3339 (such as 2025-01-01T00:00:00Z) or a date (2025-01-01, midnight UTC)")
}

func runRange(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("range", stderr)
	lf := AddLayoutFlags(fs)
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		return usageError(fs, "want FROM and TO, got %d arguments", len(pos))
	}
	l, err := lf.Layout()
	if err != nil {
		return usageError(fs, "%v", err)
	}
	from, err := parseInstant(pos[0])
	if err != nil {
		return usageError(fs, "FROM %q: %v", pos[0], err)
	}
	to, err := parseInstant(pos[1])
	if err != nil {
		return usageError(fs, "TO %q: %v", pos[1], err)
	}
	lo, hi, err := l.Range(from, to)
	if err != nil {
		return usageError(fs, "[%s, %s): %v", pos[0], pos[1], err)
	}

	tf := idtext.TimeFormat(l)
	out := bufio.NewWriter(stdout)
	// The bounds the IDs stand for: from and to rounded up to ticks.
	bound := func(id snowlab.ID, given time.Time) string {
		t := l.Decode(id).Time
		s := t.UTC().Format(tf)
		if !t.Equal(given) {
			s += fmt.Sprintf(" (%s rounded up to a tick of %v)", given.Format(time.RFC3339Nano), l.Unit)
		}
		return s
	}
	fmt.Fprintf(out, "from:  %s\n", bound(lo, from))
	fmt.Fprintf(out, "to:    %s\n", bound(hi, to))
	fmt.Fprintf(out, "lo:    %d\n", lo)
	fmt.Fprintf(out, "hi:    %d\n", hi)
	fmt.Fprintf(out, "sql:   id >= %d AND id < %d\n", lo, hi)
	if err := out.Flush(); err != nil {
		return writeFailed(stderr, err)
	}
	return exitOK
}
