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
// snowid's and snowidd's, with the same checks and messages. They are
// read as strings and, after parsing, as one snowlab.Layout in its text
// form (Layout.UnmarshalText), so that a bad value is one error line
// naming it rather than the flag package's usage dump. -layout takes the
// bits (41/10/12) or the whole text form (41/10/12,1ms,2024-01-01T00:00:00Z);
// -unit and -epoch set the unit and the epoch when -layout does not.
type LayoutFlags struct {
	fs                  *flag.FlagSet
	layout, unit, epoch string
}

// AddLayoutFlags defines -layout, -unit and -epoch on fs.
func AddLayoutFlags(fs *flag.FlagSet) *LayoutFlags {
	d := snowlab.DefaultLayout
	lf := &LayoutFlags{fs: fs}
	fs.StringVar(&lf.layout, "layout", formatBits(d), "`time/node/seq` bits of the layout, 63 in all, or the whole layout as time/node/seq,unit,epoch (41/10/12,1ms,2024-01-01T00:00:00Z)")
	fs.StringVar(&lf.unit, "unit", d.Unit.String(), "`duration` of one tick of the time field")
	fs.StringVar(&lf.epoch, "epoch", d.Epoch.Format(time.RFC3339Nano),
		"`instant` the time field counts from: "+epochForms)
	return lf
}

// Layout returns the layout the flags describe, validated. Its error names
// the layout flags set and their values, and then what
// Layout.UnmarshalText found wrong.
func (lf *LayoutFlags) Layout() (snowlab.Layout, error) {
	parts := strings.SplitN(lf.layout, ",", 3)
	set := map[string]bool{}
	lf.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if len(parts) > 1 && set["unit"] {
		return snowlab.Layout{}, fmt.Errorf("-layout %q -unit %q: give the unit in one of them", lf.layout, lf.unit)
	}
	if len(parts) > 2 && set["epoch"] {
		return snowlab.Layout{}, fmt.Errorf("-layout %q -epoch %q: give the epoch in one of them", lf.layout, lf.epoch)
	}
	for len(parts) < 3 { // the unit, then the epoch, from their flags
		parts = append(parts, [...]string{1: lf.unit, 2: lf.epoch}[len(parts)])
	}
	// The epoch as range and partitions read their bounds, a plain date
	// too, in the form Layout.UnmarshalText reads.
	epoch, err := parseEpoch(parts[2])
	if err != nil {
		return snowlab.Layout{}, fmt.Errorf("%s: %w: epoch %q: %v", lf.setFlags(), snowlab.ErrInvalidLayout, parts[2], err)
	}
	parts[2] = epoch.Format(time.RFC3339Nano)
	var l snowlab.Layout
	if err := l.UnmarshalText([]byte(strings.Join(parts, ","))); err != nil {
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

// epochForms are the forms parseEpoch reads, for the help of -epoch.
const epochForms = "RFC 3339 (2024-01-01T00:00:00Z), a date (2024-01-01, midnight UTC) or Unix milliseconds"

// parseEpoch reads an instant as (possibly negative) Unix milliseconds, or
// as parseInstant reads range's and partitions' bounds: RFC 3339 or a
// date, midnight UTC.
func parseEpoch(s string) (time.Time, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := parseInstant(s)
	if err != nil {
		return time.Time{}, errors.New("want " + epochForms)
	}
	return t, nil
}

// ParsePolicy reads a -policy flag's value, the name Policy.String gives:
// strict or monotonic (Policy.UnmarshalText).
func ParsePolicy(name string) (snowlab.Policy, bool) {
	var p snowlab.Policy
	return p, p.UnmarshalText([]byte(name)) == nil
}
