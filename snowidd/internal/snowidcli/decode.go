package snowidcli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/internal/idtext"
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
	f := idtext.TimeFormat(l)
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

func runDecode(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("decode", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per ID")
	lf := AddLayoutFlags(fs)
	ids, code, ok := parseIDArgs(fs, args)
	if !ok {
		return code
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
		id, err := idtext.Parse(arg)
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
