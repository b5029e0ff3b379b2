package snowidcli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
)

// localZone is the zone of time_local; tests replace it.
var localZone = time.Local

// record is one decoded ID, as decode prints it and gen -format json.
type record struct {
	ID        string `json:"id"`
	Base32    string `json:"base32"`
	TimeUTC   string `json:"time_utc"`
	TimeLocal string `json:"time_local"`
	UnixMs    int64  `json:"unix_ms"`
	Node      int    `json:"node"`
	Seq       int    `json:"seq"`

	zone string // the local zone's abbreviation, for the text form
}

func describe(l snowlab.Layout, id snowlab.ID) record {
	p := l.Decode(id)
	f := timeFormat(l)
	local := p.Time.In(localZone)
	return record{
		ID:        id.String(),
		Base32:    id.Base32(),
		TimeUTC:   p.Time.UTC().Format(f),
		TimeLocal: local.Format(f),
		UnixMs:    p.Time.UnixMilli(),
		Node:      p.Node,
		Seq:       p.Seq,
		zone:      local.Format("MST"),
	}
}

func (r record) writeText(w io.Writer) {
	fmt.Fprintf(w, "id:          %s\n", r.ID)
	fmt.Fprintf(w, "base32:      %s\n", r.Base32)
	fmt.Fprintf(w, "time_utc:    %s\n", r.TimeUTC)
	fmt.Fprintf(w, "time_local:  %s (%s)\n", r.TimeLocal, r.zone)
	fmt.Fprintf(w, "unix_ms:     %d\n", r.UnixMs)
	fmt.Fprintf(w, "node:        %d\n", r.Node)
	fmt.Fprintf(w, "seq:         %d\n", r.Seq)
}

// parseIDArg reads one decode argument: all digits is decimal (even at 13
// characters, where base32 would also fit), "b32:" forces base32 of 1 to 13
// characters (a shorter one is read as if padded with leading zeros), and
// any other 13-character argument is base32. Everything else is read as
// decimal so that the error says what was expected.
func parseIDArg(s string) (snowlab.ID, error) {
	if len(s) >= 4 && strings.EqualFold(s[:4], "b32:") {
		return parseBase32(s[4:])
	}
	if len(s) == base32Len && !allDigits(s) {
		return parseBase32(s)
	}
	id, err := snowlab.ParseID(s)
	if err != nil && s != "" && allCrockford(s) && len(s) < base32Len {
		// It may be a base32 ID without its leading zeros: say how to
		// read it as one.
		err = fmt.Errorf("%w (nor 13 characters of base32: b32:%s reads a shorter base32 ID)", err, s)
	}
	return id, err
}

// base32Len is the width of ID.Base32: 13 characters of 5 bits.
const base32Len = 13

// parseBase32 is snowlab.ParseBase32 for 1 to 13 characters.
func parseBase32(s string) (snowlab.ID, error) {
	if s == "" || len(s) > base32Len {
		return 0, fmt.Errorf("%w: %q has %d characters, want 1 to %d of Crockford base32", snowlab.ErrInvalidID, s, len(s), base32Len)
	}
	id, err := snowlab.ParseBase32(strings.Repeat("0", base32Len-len(s)) + s)
	if err != nil && len(s) < base32Len {
		// The message would show the padded form: name the argument.
		return 0, fmt.Errorf("%w: %q is not Crockford base32 (0-9 and A-Z but U, either case; I, L and O are read as 1, 1 and 0)", snowlab.ErrInvalidID, s)
	}
	return id, err
}

// allCrockford reports whether every byte of s is one ParseBase32 reads:
// Crockford's alphabet in either case, and its look-alikes I, L and O.
func allCrockford(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' && c != 'U') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func runDecode(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("decode", "[-json] [-layout T/N/S] [-unit D] [-epoch E] ID...", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per ID")
	lf := AddLayoutFlags(fs)
	ids, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(ids) == 0 {
		return usageError(fs, "no IDs given")
	}
	l, err := lf.Layout()
	if err != nil {
		return fail(stderr, "decode %v", err)
	}

	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	code = exitOK
	printed := 0
	for _, arg := range ids {
		id, err := parseIDArg(arg)
		if err != nil {
			// Keep the output in order with the error lines.
			if err := out.Flush(); err != nil {
				return writeFailed(stderr, err)
			}
			code = fail(stderr, "decode %q: %v", arg, err)
			continue
		}
		r := describe(l, id)
		if *asJSON {
			if err := enc.Encode(r); err != nil {
				return writeFailed(stderr, err)
			}
		} else {
			if printed > 0 {
				fmt.Fprintln(out)
			}
			r.writeText(out)
		}
		printed++
	}
	if err := out.Flush(); err != nil {
		return writeFailed(stderr, err)
	}
	return code
}

func writeFailed(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "snowid: writing output: %v\n", err)
	return exitFail
}
