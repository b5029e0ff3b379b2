package snowlab

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MarshalText returns l as TIME/NODE/SEQ,UNIT,EPOCH: the three field
// widths in bits, the tick as a Go duration and the epoch in RFC 3339 (in
// UTC, with as many fractional digits as it has), such as
// "41/10/12,1ms,2024-01-01T00:00:00Z" for DefaultLayout, so that a Layout
// in a configuration file or a flag.TextVar reads as the snowid command's
// -layout, -unit and -epoch flags do. The zero Layout is written as
// DefaultLayout, which it stands for. A layout that fails Validate is an
// error wrapping ErrInvalidLayout: whatever MarshalText writes,
// UnmarshalText reads back as the same layout.
func (l Layout) MarshalText() ([]byte, error) {
	l = l.OrDefault()
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "%d/%d/%d,%v,%s", l.TimeBits, l.NodeBits, l.SeqBits, l.Unit,
		l.Epoch.UTC().Format(time.RFC3339Nano)), nil
}

// UnmarshalText sets l from the form MarshalText writes, in which the unit
// and the epoch may be left out ("41/10/12", "39/12/12,10ms"): a part left
// out is DefaultLayout's. The epoch may also be given in Unix
// milliseconds (possibly negative). The layout read must pass Validate.
// Any other text is an error wrapping ErrInvalidLayout that quotes it and
// names the part at fault, and l is left as it was.
func (l *Layout) UnmarshalText(text []byte) error {
	s := string(text)
	nl, err := parseLayout(s)
	if err != nil {
		return fmt.Errorf("%w %q: %v", ErrInvalidLayout, s, err)
	}
	if err := nl.Validate(); err != nil {
		// One form for every refusal: the sentinel, the text, the reason
		// (Validate's message after the sentinel's).
		why := strings.TrimPrefix(err.Error(), ErrInvalidLayout.Error()+": ")
		return fmt.Errorf("%w %q: %s", ErrInvalidLayout, s, why)
	}
	*l = nl
	return nil
}

// parseLayout reads TIME/NODE/SEQ[,UNIT[,EPOCH]]. The epoch is the last
// part, so that a comma inside it (a decimal comma, which time.Parse
// accepts) stays in it.
func parseLayout(s string) (Layout, error) {
	l := defaultLayout()
	parts := strings.SplitN(s, ",", 3)
	bits := strings.Split(parts[0], "/")
	if len(bits) != 3 {
		return l, fmt.Errorf("want TIME/NODE/SEQ bits, such as 41/10/12, before any ','")
	}
	for i, p := range []*uint{&l.TimeBits, &l.NodeBits, &l.SeqBits} {
		// Each field needs at least one bit: 0/0/0 would otherwise read
		// as the zero Layout, which Validate accepts as the default.
		u, err := strconv.ParseUint(bits[i], 10, 8)
		if err != nil || u == 0 || u > 63 {
			return l, fmt.Errorf("%q is not a bit count in 1..63", bits[i])
		}
		*p = uint(u)
	}
	if len(parts) > 1 {
		u, err := time.ParseDuration(parts[1])
		if err != nil {
			return l, fmt.Errorf("unit %q: want a duration such as 1ms or 100us", parts[1])
		}
		l.Unit = u
	}
	if len(parts) > 2 {
		e, err := parseEpoch(parts[2])
		if err != nil {
			return l, err
		}
		l.Epoch = e
	}
	return l, nil
}

// parseEpoch reads an instant in RFC 3339 or as (possibly negative) Unix
// milliseconds.
func parseEpoch(s string) (time.Time, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("epoch %q: want RFC 3339 (such as 2024-01-01T00:00:00Z) or Unix milliseconds", s)
	}
	return t, nil
}
