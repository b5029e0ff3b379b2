// Package idtext is how snowid and snowidd write and read an ID as text
// beyond snowlab's own forms: an ID argument in either form (decimal,
// base32, or after a dec: or b32: prefix), and the time of an ID's tick.
// One reading and one writing for the command and the service, so that
// an ID the one takes the other takes, and a time the one prints the
// other prints alike.
package idtext

import (
	"fmt"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
)

// Prefixes that say how to read an ID argument; either case.
const (
	decPrefix = "dec:"
	b32Prefix = "b32:"
)

// base32Len is the width of ID.Base32: 13 characters of 5 bits.
const base32Len = 13

// Parse reads an ID as snowid's commands that take an ID in either form
// (decode, mask) read their arguments, and as snowidd's Decode reads a
// JSON string that is not all digits, so that all of them read one ID
// alike:
//
//   - "dec:" then a decimal ID (snowlab.ParseID);
//   - "b32:" then 1 to 13 characters of Crockford base32 (a shorter one is
//     read as if padded with leading zeros);
//   - 13 digits that are a base32 ID too (the first is 0 to 7; 8 and 9
//     overflow 63 bits) and name another ID read that way: refused, saying
//     how to write each reading. Neither reading can be the default:
//     ID.Base32 is all digits for one ID in 360,000 to 1,150,000
//     ((32/10)^11 or ^12: the first character is a digit, and so is the
//     second until 2026-09 under the default layout), and a 13-digit
//     decimal is a real ID too (any below 10^13: the default layout's
//     first 40 minutes, or a small test ID).
//     0000000000000 to 0000000000009 name one ID either way and are taken;
//   - any other 13-character argument: base32;
//   - anything else: decimal.
func Parse(s string) (snowlab.ID, error) {
	switch {
	case hasPrefixFold(s, decPrefix):
		return snowlab.ParseID(s[len(decPrefix):])
	case hasPrefixFold(s, b32Prefix):
		return parseBase32(s[len(b32Prefix):])
	case len(s) == base32Len && AllDigits(s):
		return parseDigits13(s)
	case len(s) == base32Len:
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

// parseDigits13 reads 13 digits: decimal, unless they are base32 of
// another ID too.
func parseDigits13(s string) (snowlab.ID, error) {
	dec, err := snowlab.ParseID(s)
	if err != nil {
		return 0, err // unreachable: 13 digits are below 2^63
	}
	b32, err := snowlab.ParseBase32(s)
	if err != nil || b32 == dec {
		// Not base32 (a first digit of 8 or 9 is above 2^63-1), or
		// the same ID both ways.
		return dec, nil
	}
	// The decimal written with another number of digits: without its
	// leading zeros, or with one more.
	other := strings.TrimLeft(s, "0")
	if len(other) == len(s) {
		other = "0" + s
	}
	return 0, fmt.Errorf("%w: %q reads two ways: write %s%s (or %s) for the decimal ID %d, %s%s for the base32 ID %d",
		snowlab.ErrInvalidID, s, decPrefix, s, other, int64(dec), b32Prefix, s, int64(b32))
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

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

// AllDigits reports whether s is made of decimal digits only (an empty s
// is).
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// TimeFormat is RFC 3339 with as many fractional digits as the layout's
// ticks need: milliseconds, unless the unit or the epoch is finer. It is
// the one form of an ID's time in snowid's output and in snowidd's Decode
// JSON: a fixed number of digits for a layout, so that whole seconds
// keep their ".000" (protojson's Timestamp drops it).
func TimeFormat(l snowlab.Layout) string {
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
