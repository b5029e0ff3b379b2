package snowidcli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
)

// LayoutFlags are the -layout, -unit and -epoch flags every command takes,
// snowid's and the project's other commands' (snowidd), with the same
// checks and messages. They are read as strings and checked after parsing,
// so that a bad value is one error line naming it rather than the flag
// package's usage dump.
type LayoutFlags struct {
	fs                *flag.FlagSet
	bits, unit, epoch string
}

// AddLayoutFlags defines -layout, -unit and -epoch on fs.
func AddLayoutFlags(fs *flag.FlagSet) *LayoutFlags {
	d := snowlab.DefaultLayout
	lf := &LayoutFlags{fs: fs}
	fs.StringVar(&lf.bits, "layout", formatBits(d), "`time/node/seq` bits of the layout, 63 in all")
	fs.StringVar(&lf.unit, "unit", d.Unit.String(), "`duration` of one tick of the time field")
	fs.StringVar(&lf.epoch, "epoch", d.Epoch.Format(time.RFC3339Nano),
		"`instant` the time field counts from: RFC 3339 or Unix milliseconds")
	return lf
}

// Layout returns the layout the flags describe, validated. Its error names
// the flag at fault (or the layout flags set, when Validate refuses their
// combination).
func (lf *LayoutFlags) Layout() (snowlab.Layout, error) {
	l := snowlab.DefaultLayout
	var err error
	if l.TimeBits, l.NodeBits, l.SeqBits, err = parseBits(lf.bits); err != nil {
		return l, fmt.Errorf("-layout %q: %w", lf.bits, err)
	}
	if l.Unit, err = time.ParseDuration(lf.unit); err != nil {
		return l, fmt.Errorf("-unit %q: want a duration such as 1ms or 100us", lf.unit)
	}
	if l.Epoch, err = parseEpoch(lf.epoch); err != nil {
		return l, fmt.Errorf("-epoch %q: %w", lf.epoch, err)
	}
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("%s: %w", lf.setFlags(), err)
	}
	return l, nil
}

// setFlags names the layout flags given on the command line, with their
// values.
func (lf *LayoutFlags) setFlags() string {
	var set []string
	lf.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "layout", "unit", "epoch":
			set = append(set, fmt.Sprintf("-%s %q", f.Name, f.Value))
		}
	})
	if len(set) == 0 {
		return "default layout"
	}
	return strings.Join(set, " ")
}

func formatBits(l snowlab.Layout) string {
	return fmt.Sprintf("%d/%d/%d", l.TimeBits, l.NodeBits, l.SeqBits)
}

// parseBits reads "41/10/12". Each field needs at least one bit: a zero
// Layout would otherwise pass Validate as the default.
func parseBits(s string) (t, n, q uint, err error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return 0, 0, 0, errors.New("want time/node/seq bits, such as 41/10/12")
	}
	var v [3]uint
	for i, p := range parts {
		u, err := strconv.ParseUint(p, 10, 8)
		if err != nil || u == 0 {
			return 0, 0, 0, fmt.Errorf("%q is not a bit count in 1..63", p)
		}
		v[i] = uint(u)
	}
	return v[0], v[1], v[2], nil
}

// parseEpoch reads an instant in RFC 3339 or as (possibly negative) Unix
// milliseconds.
func parseEpoch(s string) (time.Time, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, errors.New("want RFC 3339 (such as 2024-01-01T00:00:00Z) or Unix milliseconds")
	}
	return t, nil
}

// timeFormat is RFC 3339 with as many fractional digits as the layout's
// ticks need: milliseconds, unless the unit or the epoch is finer.
func timeFormat(l snowlab.Layout) string {
	fine := func(d time.Duration) bool {
		return l.Unit%d != 0 || time.Duration(l.Epoch.Nanosecond())%d != 0
	}
	switch {
	case !fine(time.Millisecond):
		return "2006-01-02T15:04:05.000Z07:00"
	case !fine(time.Microsecond):
		return "2006-01-02T15:04:05.000000Z07:00"
	}
	return "2006-01-02T15:04:05.000000000Z07:00"
}

// ParsePolicy reads a -policy flag's value, the name Policy.String gives:
// strict or monotonic (Policy.UnmarshalText).
func ParsePolicy(name string) (snowlab.Policy, bool) {
	var p snowlab.Policy
	return p, p.UnmarshalText([]byte(name)) == nil
}
