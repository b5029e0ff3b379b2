package snowidcli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/snowlab/snowlab"
)

// Prefixes that say how to read an ID argument; either case.
const (
	decPrefix = "dec:"
	b32Prefix = "b32:"
)

// base32Len is the width of ID.Base32: 13 characters of 5 bits.
const base32Len = 13

// idFormsHelp is what the help of decode and mask says about writing an
// ID, as parseIDArg reads it.
const idFormsHelp = `An ID is decimal (141264821508263936), 13 characters of Crockford base32
(03XEZKD8M4M00, decode's base32), or either after a prefix: dec:DIGITS, or
b32: and 1 to 13 base32 characters (leading zeros may be dropped). 13 digits
that are two different IDs, decimal and base32 (0312345678901), are refused:
write dec:0312345678901 or b32:0312345678901.
`

// parseIDArgs parses the flags and ID arguments of a command that reads
// IDs as parseIDArg does (decode, mask): its help explains how to write
// one, and a command line with none is a usage error.
func parseIDArgs(fs *flag.FlagSet, args []string) (ids []string, code int, ok bool) {
	addNote(fs, idFormsHelp)
	ids, code, ok = parse(fs, args)
	if ok && len(ids) == 0 {
		return nil, usageError(fs, "no IDs given"), false
	}
	return ids, code, ok
}

// addNote has fs's usage end with note, after the flags and a blank line.
func addNote(fs *flag.FlagSet, note string) {
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(fs.Output(), "\n"+note)
	}
}

// parseIDArg reads an ID argument of any command that takes an ID in
// either form (decode, mask), so that all of them read one argument alike:
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
func parseIDArg(s string) (snowlab.ID, error) {
	switch {
	case hasPrefixFold(s, decPrefix):
		return snowlab.ParseID(s[len(decPrefix):])
	case hasPrefixFold(s, b32Prefix):
		return parseBase32(s[len(b32Prefix):])
	case len(s) == base32Len && allDigits(s):
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

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
