package snowlab

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// The fuzz targets check properties, not vectors: whatever a parser accepts
// must be a valid ID that prints back to the canonical form of the input,
// and whatever it refuses must be refused with ErrInvalidID. Run one with
// go test -run '^$' -fuzz '^FuzzParseID$' -fuzztime 30s .

func FuzzParseID(f *testing.F) {
	for _, s := range []string{
		"0", "1", "007", "141264821508263936", "9223372036854775807",
		"0009223372036854775807", "9223372036854775808", "99999999999999999999",
		"18446744073709551615", "18446744073709551616", "18446744073709551620",
		"", "-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "12a", "\u0661",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidID) {
				t.Fatalf("ParseID(%q) error %v does not wrap ErrInvalidID", s, err)
			}
			if id != 0 {
				t.Fatalf("ParseID(%q) failed but returned %d", s, id)
			}
			return
		}
		if id < 0 {
			t.Fatalf("ParseID(%q) = %d, negative", s, id)
		}
		canonical := strings.TrimLeft(s, "0")
		if canonical == "" {
			canonical = "0"
		}
		if id.String() != canonical {
			t.Fatalf("ParseID(%q) = %d, want the value %s", s, id, canonical)
		}
		back, err := ParseID(id.String())
		if err != nil || back != id {
			t.Fatalf("ParseID(%q) = %d, %v; want %d", id.String(), back, err, id)
		}
		var u ID
		if err := u.UnmarshalText([]byte(s)); err != nil || u != id {
			t.Fatalf("UnmarshalText(%q) = %d, %v; ParseID gave %d", s, u, err, id)
		}
	})
}

// normalizeBase32 applies Crockford's reading rules: any case, I and L for 1,
// O for 0.
func normalizeBase32(s string) string {
	return strings.NewReplacer("I", "1", "L", "1", "O", "0").Replace(strings.ToUpper(s))
}

func FuzzParseBase32(f *testing.F) {
	for _, s := range []string{
		"0000000000000", "03XEZKD8M4M00", "03xezkd8m4m00", "O3XEZKD8M4MOO",
		"000000000000I", "000000000000l", "7ZZZZZZZZZZZZ", "7zzzzzzzzzzzz",
		"8000000000000", "ZZZZZZZZZZZZZ", "000000000000U", "000000000000!",
		"", "000000000000", "00000000000000", "00000000000\u00e9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseBase32(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidID) {
				t.Fatalf("ParseBase32(%q) error %v does not wrap ErrInvalidID", s, err)
			}
			if id != 0 {
				t.Fatalf("ParseBase32(%q) failed but returned %d", s, id)
			}
			return
		}
		if id < 0 {
			t.Fatalf("ParseBase32(%q) = %d, negative", s, id)
		}
		enc := id.Base32()
		if len(enc) != 13 {
			t.Fatalf("%d.Base32() = %q, want 13 characters", id, enc)
		}
		if got := normalizeBase32(s); got != enc {
			t.Fatalf("ParseBase32(%q) = %d, whose Base32 is %q; the input normalizes to %q", s, id, enc, got)
		}
		back, err := ParseBase32(enc)
		if err != nil || back != id {
			t.Fatalf("ParseBase32(%q) = %d, %v; want %d", enc, back, err, id)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`"141264821508263936"`, `141264821508263936`, `"0"`, `0`, `null`,
		`"9223372036854775807"`, `9223372036854775808`, `"18446744073709551620"`,
		`-1`, `"-1"`, `1.5`, `"1.5"`, `1e3`, `"  12"`, `true`, `{}`, `[]`,
		`"`, `""`, ``, `"\u0031"`, `"null"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const sentinel = ID(42)
		id := sentinel
		err := id.UnmarshalJSON(b)
		if err != nil {
			if !errors.Is(err, ErrInvalidID) {
				t.Fatalf("UnmarshalJSON(%q) error %v does not wrap ErrInvalidID", b, err)
			}
			if id != sentinel {
				t.Fatalf("UnmarshalJSON(%q) failed but changed the ID to %d", b, id)
			}
			return
		}
		if string(b) == "null" {
			if id != sentinel {
				t.Fatalf("UnmarshalJSON(null) changed the ID to %d", id)
			}
			return
		}
		if id < 0 {
			t.Fatalf("UnmarshalJSON(%q) = %d, negative", b, id)
		}
		out, err := json.Marshal(id)
		if err != nil {
			t.Fatalf("Marshal(%d): %v", id, err)
		}
		var back ID
		if err := json.Unmarshal(out, &back); err != nil || back != id {
			t.Fatalf("Unmarshal(%s) = %d, %v; want %d", out, back, err, id)
		}
		// What was accepted is a decimal, bare or quoted, that ParseID
		// reads to the same ID.
		digits := strings.Trim(string(b), `"`)
		if b[0] == '"' {
			var str string
			if err := json.Unmarshal(b, &str); err != nil {
				t.Fatalf("UnmarshalJSON(%q) = %d, but it is not a JSON string: %v", b, id, err)
			}
			digits = str
		}
		if p, err := ParseID(digits); err != nil || p != id {
			t.Fatalf("UnmarshalJSON(%q) = %d but ParseID(%q) = %d, %v", b, id, digits, p, err)
		}
	})
}

func FuzzIDRoundTrip(f *testing.F) {
	for _, v := range []int64{0, 1, 31, 32, 1<<53 + 1, int64(vectorID), math.MaxInt64, -1, math.MinInt64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		id := ID(v & math.MaxInt64) // every input maps to a valid ID

		if back, err := ParseID(id.String()); err != nil || back != id {
			t.Fatalf("ParseID(%q) = %d, %v; want %d", id.String(), back, err, id)
		}

		text, err := id.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var fromText ID
		if err := fromText.UnmarshalText(text); err != nil || fromText != id {
			t.Fatalf("UnmarshalText(%q) = %d, %v; want %d", text, fromText, err, id)
		}

		enc := id.Base32()
		if len(enc) != 13 {
			t.Fatalf("%d.Base32() = %q, want 13 characters", id, enc)
		}
		if back, err := ParseBase32(enc); err != nil || back != id {
			t.Fatalf("ParseBase32(%q) = %d, %v; want %d", enc, back, err, id)
		}
		if back, err := ParseBase32(strings.ToLower(enc)); err != nil || back != id {
			t.Fatalf("ParseBase32(%q) = %d, %v; want %d", strings.ToLower(enc), back, err, id)
		}

		js, err := json.Marshal(id)
		if err != nil {
			t.Fatal(err)
		}
		if want := `"` + id.String() + `"`; string(js) != want {
			t.Fatalf("Marshal(%d) = %s, want %s", id, js, want)
		}
		var fromJSON ID
		if err := json.Unmarshal(js, &fromJSON); err != nil || fromJSON != id {
			t.Fatalf("Unmarshal(%s) = %d, %v; want %d", js, fromJSON, err, id)
		}
		var fromNumber ID
		if err := json.Unmarshal([]byte(id.String()), &fromNumber); err != nil || fromNumber != id {
			t.Fatalf("Unmarshal(%s) = %d, %v; want %d", id.String(), fromNumber, err, id)
		}

		dv, err := id.Value()
		if err != nil {
			t.Fatal(err)
		}
		var scanned ID
		if err := scanned.Scan(dv); err != nil || scanned != id {
			t.Fatalf("Scan(%v) = %d, %v; want %d", dv, scanned, err, id)
		}
	})
}
