package snowlab

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ID is a Snowflake-style identifier: a positive int64 whose bits are laid
// out by a Layout. Valid IDs are 0 through 2^63-1.
type ID int64

// String returns the ID in decimal.
func (id ID) String() string { return strconv.FormatInt(int64(id), 10) }

// MarshalText writes the ID in decimal.
func (id ID) MarshalText() ([]byte, error) { return strconv.AppendInt(nil, int64(id), 10), nil }

// UnmarshalText reads a decimal ID, as ParseID does.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := parseDecimal(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// MarshalJSON writes the ID as a JSON string. JavaScript numbers are
// doubles and round integers above 2^53, which a 41-bit timestamp passes
// within days of the epoch, so a bare number would silently corrupt IDs in a
// browser.
func (id ID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 21)
	b = append(b, '"')
	b = strconv.AppendInt(b, int64(id), 10)
	return append(b, '"'), nil
}

// UnmarshalJSON reads a JSON string holding a decimal ID, or a bare JSON
// number for clients that send one. JSON null leaves the ID unchanged, as
// encoding/json does for other types.
func (id *ID) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	digits := b
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		digits = b[1 : len(b)-1]
		if bytes.IndexByte(digits, '\\') >= 0 {
			// A string with escapes ("\u0031" is "1") is still valid JSON
			// for the same digits: let encoding/json decode it.
			var s string
			if err := json.Unmarshal(b, &s); err != nil {
				return fmt.Errorf("%w: JSON %q is not a decimal ID in 0..2^63-1", ErrInvalidID, b)
			}
			digits = []byte(s)
		}
	}
	v, err := parseDecimal(digits)
	if err != nil {
		return fmt.Errorf("%w: JSON %q is not a decimal ID in 0..2^63-1", ErrInvalidID, b)
	}
	*id = v
	return nil
}

// Value stores the ID in a database as an int64 (a BIGINT column). A
// negative ID is no ID, and is refused rather than stored: Scan would
// refuse to read it back.
func (id ID) Value() (driver.Value, error) {
	if id < 0 {
		return nil, fmt.Errorf("%w: %d is negative", ErrInvalidID, int64(id))
	}
	return int64(id), nil
}

// Scan reads an ID from a database column holding an integer, or the
// decimal text of one. Trailing spaces in text are dropped: a CHAR(n)
// column pads its value with them. Any other space is refused.
func (id *ID) Scan(src any) error {
	var v ID
	var err error
	switch s := src.(type) {
	case int64:
		if s < 0 {
			return fmt.Errorf("%w: %d is negative", ErrInvalidID, s)
		}
		v = ID(s)
	case []byte:
		v, err = parseDecimal(bytes.TrimRight(s, " "))
	case string:
		v, err = parseDecimal([]byte(strings.TrimRight(s, " ")))
	default:
		return fmt.Errorf("%w: cannot scan %T (%v) into an ID", ErrInvalidID, src, src)
	}
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// ParseID reads a decimal ID. Only the digits 0-9 are accepted: a sign,
// surrounding space, a fraction or a value above 2^63-1 is ErrInvalidID.
func ParseID(s string) (ID, error) { return parseDecimal([]byte(s)) }

func parseDecimal(b []byte) (ID, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: empty string", ErrInvalidID)
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: %q is not a decimal ID", ErrInvalidID, b)
		}
		// Check before multiplying: v*10 can wrap a uint64 back into range.
		d := uint64(c - '0')
		if v > (1<<63-1-d)/10 {
			return 0, fmt.Errorf("%w: %q is above 2^63-1", ErrInvalidID, b)
		}
		v = v*10 + d
	}
	return ID(v), nil
}

// crockford is Crockford's base32 alphabet: digits then letters in ASCII
// order, without I, L, O and U, so that byte order is numeric order.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// base32Len is the fixed width: 13 characters of 5 bits cover 63 bits.
const base32Len = 13

// Base32 returns the ID as 13 characters of Crockford base32, zero-padded,
// so that sorting the strings sorts the IDs.
func (id ID) Base32() string {
	var b [base32Len]byte
	u := uint64(id)
	for i := base32Len - 1; i >= 0; i-- {
		b[i] = crockford[u&31]
		u >>= 5
	}
	return string(b[:])
}

// crockfordValue maps a byte to its 5-bit value, or 0xFF. Lower case and
// Crockford's look-alikes (I and L for 1, O for 0) are read too, because a
// human copying an ID from a log will type them.
var crockfordValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := 0; i < len(crockford); i++ {
		c := crockford[i]
		t[c] = byte(i)
		if c >= 'A' && c <= 'Z' {
			t[c+'a'-'A'] = byte(i)
		}
	}
	for _, c := range "IiLl" {
		t[c] = 1
	}
	t['O'], t['o'] = 0, 0
	return t
}()

// ParseBase32 reads the 13-character Crockford form written by Base32. Any
// other length, a character outside the alphabet, or a value above 2^63-1
// (a first character above 7) is ErrInvalidID.
func ParseBase32(s string) (ID, error) {
	if len(s) != base32Len {
		return 0, fmt.Errorf("%w: %q has %d characters, want %d", ErrInvalidID, s, len(s), base32Len)
	}
	var u uint64
	for i := 0; i < base32Len; i++ {
		v := crockfordValue[s[i]]
		if v == 0xFF {
			return 0, fmt.Errorf("%w: %q has %q at %d, not Crockford base32", ErrInvalidID, s, s[i], i)
		}
		u = u<<5 | uint64(v)
	}
	if crockfordValue[s[0]] > 7 {
		return 0, fmt.Errorf("%w: %q is above 2^63-1", ErrInvalidID, s)
	}
	return ID(u), nil
}
