package snowlab

import (
	"database/sql"
	"database/sql/driver"
	"encoding"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Compile-time checks of the interfaces ID promises.
var (
	_ json.Marshaler           = ID(0)
	_ json.Unmarshaler         = (*ID)(nil)
	_ encoding.TextMarshaler   = ID(0)
	_ encoding.TextUnmarshaler = (*ID)(nil)
	_ driver.Valuer            = ID(0)
	_ sql.Scanner              = (*ID)(nil)
)

// sampleIDs are valid IDs at the edges and in between.
var sampleIDs = []ID{
	0, 1, 9, 10, 31, 32, 1023, 1 << 22, 1<<53 - 1, 1 << 53, 1<<53 + 1,
	vectorID, 141264821510144037, math.MaxInt64 - 1, math.MaxInt64,
}

// randomIDs returns n valid IDs spread over the whole range: uniform ones
// and ones of every bit length.
func randomIDs(seed uint64, n int) []ID {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ids := slices.Clone(sampleIDs)
	for i := range n {
		if i%2 == 0 {
			ids = append(ids, ID(r.Int64()))
		} else {
			ids = append(ids, ID(r.Int64()>>r.IntN(63)))
		}
	}
	return ids
}

func TestStringParseIDRoundTrip(t *testing.T) {
	for _, id := range randomIDs(1, 5000) {
		s := id.String()
		require.Equal(t, strconv.FormatInt(int64(id), 10), s)
		got, err := ParseID(s)
		require.NoError(t, err, s)
		require.Equal(t, id, got)
	}
}

func TestParseIDAccepts(t *testing.T) {
	tests := []struct {
		in   string
		want ID
	}{
		{"0", 0},
		{"1", 1},
		{"9", 9},
		{"141264821508263936", vectorID},
		{"9223372036854775807", math.MaxInt64},
		{"9223372036854775806", math.MaxInt64 - 1},
		{"00", 0},
		{"0000000000000000000000000000000", 0},
		{"007", 7},
		{"0141264821508263936", vectorID},
		{"0009223372036854775807", math.MaxInt64},
		{"1844674407370955161", 1844674407370955161}, // (2^64-1)/10: the largest v*10 that fits a uint64
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseID(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)

			var u ID
			require.NoError(t, u.UnmarshalText([]byte(tt.in)))
			assert.Equal(t, tt.want, u)
		})
	}
}

func TestParseIDRejects(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"empty", ""},
		{"minus", "-1"},
		{"minus zero", "-0"},
		{"plus", "+1"},
		{"leading space", " 1"},
		{"trailing space", "1 "},
		{"trailing newline", "1\n"},
		{"tab", "\t1"},
		{"fraction", "1.5"},
		{"trailing dot", "1."},
		{"exponent", "1e3"},
		{"hex", "0x10"},
		{"underscore", "1_000"},
		{"comma", "1,000"},
		{"2^63", "9223372036854775808"},
		{"2^63 with leading zeros", "0009223372036854775808"},
		{"min int64", "-9223372036854775808"},
		{"twenty nines", "99999999999999999999"},
		// Values that wrap a uint64 accumulator back into range.
		{"2^64-1", "18446744073709551615"},
		{"2^64", "18446744073709551616"},
		{"2^64+4", "18446744073709551620"},
		{"2^64+2^62", "23058430092136939520"},
		{"2^65", "36893488147419103232"},
		{"2^64*10", "184467440737095516160"},
		{"very long", strings.Repeat("9", 100)},
		{"letters after digits", "12a"},
		{"letters", "abc"},
		{"NUL", "1\x00"},
		{"arabic-indic digit", "\u0661"},
		{"fullwidth digit", "\uff11"},
		{"quoted", `"1"`},
		{"null", "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := ParseID(tt.in)
			require.Error(t, err, "ParseID(%q) = %d", tt.in, id)
			assert.ErrorIs(t, err, ErrInvalidID)
			assert.Zero(t, id)
			if tt.in == "" {
				assert.Contains(t, err.Error(), "empty")
			} else {
				assert.Contains(t, err.Error(), strconv.Quote(tt.in))
			}

			u := ID(42)
			err = u.UnmarshalText([]byte(tt.in))
			assert.ErrorIs(t, err, ErrInvalidID)
			assert.Equal(t, ID(42), u, "a failed UnmarshalText must leave the ID alone")
		})
	}
}

func TestTextRoundTrip(t *testing.T) {
	for _, id := range randomIDs(2, 2000) {
		b, err := id.MarshalText()
		require.NoError(t, err)
		require.Equal(t, id.String(), string(b))
		var got ID
		require.NoError(t, got.UnmarshalText(b))
		require.Equal(t, id, got)
	}
}

func TestMarshalJSON(t *testing.T) {
	tests := []struct {
		id   ID
		want string
	}{
		{0, `"0"`},
		{vectorID, `"141264821508263936"`},
		{math.MaxInt64, `"9223372036854775807"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			b, err := tt.id.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))

			b, err = json.Marshal(tt.id)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
		})
	}
}

func TestUnmarshalJSONAccepts(t *testing.T) {
	tests := []struct {
		in   string
		want ID
	}{
		{`"141264821508263936"`, vectorID},
		{`141264821508263936`, vectorID},
		{`"0"`, 0},
		{`0`, 0},
		{`"9223372036854775807"`, math.MaxInt64},
		{`9223372036854775807`, math.MaxInt64},
		{`"007"`, 7},
		{`9007199254740993`, 1<<53 + 1}, // above 2^53: exact, not through a float64
		{`"\u0031\u0032\u0033"`, 123},   // escapes are valid JSON for the same digits
		{`"\u0030"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var id ID
			require.NoError(t, id.UnmarshalJSON([]byte(tt.in)))
			assert.Equal(t, tt.want, id)

			var viaPkg ID
			require.NoError(t, json.Unmarshal([]byte(tt.in), &viaPkg))
			assert.Equal(t, tt.want, viaPkg)
		})
	}
}

func TestUnmarshalJSONRejects(t *testing.T) {
	tests := []struct {
		name, in string
		// validJSON: whether the input is well-formed JSON, so that
		// json.Unmarshal hands it to UnmarshalJSON at all.
		validJSON bool
	}{
		{"negative number", `-1`, true},
		{"negative string", `"-1"`, true},
		{"negative zero", `-0`, true},
		{"2^63 number", `9223372036854775808`, true},
		{"2^63 string", `"9223372036854775808"`, true},
		{"2^64+4 number", `18446744073709551620`, true},
		{"2^64+4 string", `"18446744073709551620"`, true},
		{"overflow", `99999999999999999999`, true},
		{"fraction number", `1.5`, true},
		{"fraction string", `"1.5"`, true},
		{"integral fraction", `1.0`, true},
		{"exponent number", `1e3`, true},
		{"exponent string", `"1e3"`, true},
		{"garbage string", `"abc"`, true},
		{"leading space in string", `"  12"`, true},
		{"trailing space in string", `"12 "`, true},
		{"empty string", `""`, true},
		{"true", `true`, true},
		{"false", `false`, true},
		{"object", `{}`, true},
		{"array", `[1]`, true},
		{"quoted null", `"null"`, true},
		{"empty input", ``, false},
		{"lone quote", `"`, false},
		{"unterminated string", `"12`, false},
		{"unopened string", `12"`, false},
		{"garbage", `abc`, false},
		{"hex", `0x10`, false},
		{"plus", `+1`, false},
		{"single quotes", `'12'`, false},
		{"NULL", `NULL`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := ID(42)
			err := id.UnmarshalJSON([]byte(tt.in))
			require.Error(t, err, "UnmarshalJSON(%s) = %d", tt.in, id)
			assert.ErrorIs(t, err, ErrInvalidID)
			assert.Contains(t, err.Error(), strconv.Quote(tt.in))
			assert.Equal(t, ID(42), id, "a failed UnmarshalJSON must leave the ID alone")

			viaPkg := ID(42)
			err = json.Unmarshal([]byte(tt.in), &viaPkg)
			require.Error(t, err)
			if tt.validJSON {
				assert.ErrorIs(t, err, ErrInvalidID)
			}
			assert.Equal(t, ID(42), viaPkg)
		})
	}
}

func TestUnmarshalJSONNull(t *testing.T) {
	id := ID(42)
	require.NoError(t, id.UnmarshalJSON([]byte("null")))
	assert.Equal(t, ID(42), id)

	id = ID(42)
	require.NoError(t, json.Unmarshal([]byte("null"), &id))
	assert.Equal(t, ID(42), id)

	s := struct{ ID ID }{ID: 42}
	require.NoError(t, json.Unmarshal([]byte(`{"ID":null}`), &s))
	assert.Equal(t, ID(42), s.ID)
}

type record struct {
	ID     ID            `json:"id"`
	Parent ID            `json:"parent"`
	Ptr    *ID           `json:"ptr,omitempty"`
	Refs   []ID          `json:"refs"`
	ByID   map[ID]string `json:"by_id"`
}

func TestJSONStructRoundTrip(t *testing.T) {
	p := ID(math.MaxInt64)
	in := record{
		ID:     vectorID,
		Parent: 0,
		Ptr:    &p,
		Refs:   []ID{1, 1<<53 + 1, math.MaxInt64},
		ByID:   map[ID]string{vectorID: "a", 7: "b"},
	}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"id": "141264821508263936",
		"parent": "0",
		"ptr": "9223372036854775807",
		"refs": ["1", "9007199254740993", "9223372036854775807"],
		"by_id": {"141264821508263936": "a", "7": "b"}
	}`, string(b))

	var out record
	require.NoError(t, json.Unmarshal(b, &out))
	assert.Equal(t, in, out)
}

func TestJSONMixedClientForms(t *testing.T) {
	var out record
	require.NoError(t, json.Unmarshal([]byte(`{"id": 141264821508263936, "parent": "496", "refs": [1, "2"]}`), &out))
	assert.Equal(t, vectorID, out.ID)
	assert.Equal(t, ID(496), out.Parent)
	assert.Equal(t, []ID{1, 2}, out.Refs)

	err := json.Unmarshal([]byte(`{"id": -5}`), &out)
	assert.ErrorIs(t, err, ErrInvalidID)
}

// Integers above 2^53 are why IDs travel as JSON strings: a float64 (what a
// JavaScript client, or Go decoding into any, uses for a number) rounds them.
func TestJSONAbove2To53IsExact(t *testing.T) {
	for _, id := range []ID{1<<53 + 1, vectorID + 1, math.MaxInt64} {
		require.NotEqual(t, int64(id), int64(float64(id)), "%d is not exact as a float64", id)

		b, err := json.Marshal(id)
		require.NoError(t, err)

		var back ID
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, id, back)

		// A generic decoder sees a string, not a lossy float64.
		var generic any
		require.NoError(t, json.Unmarshal(b, &generic))
		assert.Equal(t, id.String(), generic)
	}

	for _, id := range randomIDs(3, 2000) {
		b, err := json.Marshal(id)
		require.NoError(t, err)
		var back ID
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, id, back)
	}
}

// base32Oracle writes id in Crockford base32 with math/big, independently of
// the package's encoder.
func base32Oracle(id ID) string {
	s := big.NewInt(int64(id)).Text(32) // digits 0-9a-v
	var b strings.Builder
	for range 13 - len(s) {
		b.WriteByte('0')
	}
	for _, c := range s {
		v, _ := strconv.ParseInt(string(c), 32, 8)
		b.WriteByte(crockford[v])
	}
	return b.String()
}

func TestBase32Known(t *testing.T) {
	tests := []struct {
		id   ID
		want string
	}{
		{0, "0000000000000"},
		{1, "0000000000001"},
		{10, "000000000000A"},
		{18, "000000000000J"}, // I is skipped
		{31, "000000000000Z"},
		{32, "0000000000010"},
		{1<<60 - 1, "0ZZZZZZZZZZZZ"},
		{1 << 60, "1000000000000"},
		{vectorID, "03XEZKD8M4M00"},
		{math.MaxInt64, "7ZZZZZZZZZZZZ"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.id.Base32())
			assert.Equal(t, tt.want, base32Oracle(tt.id))
			got, err := ParseBase32(tt.want)
			require.NoError(t, err)
			assert.Equal(t, tt.id, got)
		})
	}
}

func TestBase32RoundTrip(t *testing.T) {
	for _, id := range randomIDs(4, 5000) {
		s := id.Base32()
		require.Len(t, s, 13)
		require.Equal(t, base32Oracle(id), s, "id %d", id)
		require.LessOrEqual(t, s[0], byte('7'))
		got, err := ParseBase32(s)
		require.NoError(t, err, s)
		require.Equal(t, id, got)

		// Lower case reads the same.
		got, err = ParseBase32(strings.ToLower(s))
		require.NoError(t, err)
		require.Equal(t, id, got)
	}
}

func TestParseBase32Accepts(t *testing.T) {
	tests := []struct {
		name, in string
		want     ID
	}{
		{"canonical", "03XEZKD8M4M00", vectorID},
		{"lower case", "03xezkd8m4m00", vectorID},
		{"mixed case", "03xEzKd8M4m00", vectorID},
		{"O for 0", "O3XEZKD8M4MOO", vectorID},
		{"o for 0", "o3XEZKD8M4Moo", vectorID},
		{"I for 1", "000000000000I", 1},
		{"i for 1", "000000000000i", 1},
		{"L for 1", "000000000000L", 1},
		{"l for 1", "000000000000l", 1},
		{"all aliases", "OoIiLl0000000", 1<<50 | 1<<45 | 1<<40 | 1<<35}, // 0,0,1,1,1,1 then zeros
		{"max", "7ZZZZZZZZZZZZ", math.MaxInt64},
		{"max lower", "7zzzzzzzzzzzz", math.MaxInt64},
		{"zero", "0000000000000", 0},
		{"all O", "OOOOOOOOOOOOO", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBase32(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseBase32Rejects(t *testing.T) {
	tests := []struct {
		name, in, msg string
	}{
		{"empty", "", "0 characters"},
		{"12 chars", "000000000000", "12 characters"},
		{"14 chars", "00000000000000", "14 characters"},
		{"decimal form", "141264821508263936", "18 characters"},
		{"U", "000000000000U", "'U'"},
		{"u", "000000000000u", "'u'"},
		{"bang", "000000000000!", "'!'"},
		{"space", " 000000000000", "' '"},
		{"dash", "03XEZ-D8M4M00", "'-' at 5"},
		{"NUL", "000000000000\x00", `'\x00'`},
		{"high byte", "000000000000\xff", "at 12"},
		{"multibyte rune in 13 bytes", "00000000000\u00e9", "at 11"},
		{"8 first: 2^63", "8000000000000", "above 2^63-1"},
		{"9 first", "9000000000000", "above 2^63-1"},
		{"Z first", "ZZZZZZZZZZZZZ", "above 2^63-1"},
		{"z first", "z000000000000", "above 2^63-1"},
		{"A first", "A000000000000", "above 2^63-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := ParseBase32(tt.in)
			require.Error(t, err, "ParseBase32(%q) = %d", tt.in, id)
			assert.ErrorIs(t, err, ErrInvalidID)
			assert.Zero(t, id)
			assert.Contains(t, err.Error(), strconv.Quote(tt.in))
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestBase32SortsLikeIDs(t *testing.T) {
	ids := randomIDs(5, 4000)
	r := rand.New(rand.NewPCG(6, 7))
	// Pairs of random IDs, and of near neighbours.
	for i := range 50000 {
		a := ids[r.IntN(len(ids))]
		var b ID
		if i%2 == 0 {
			b = ids[r.IntN(len(ids))]
		} else {
			b = a + ID(r.IntN(65)) - 32
			if b < 0 {
				b = 0
			}
		}
		require.Equal(t, a < b, a.Base32() < b.Base32(), "%d vs %d", a, b)
		require.Equal(t, a == b, a.Base32() == b.Base32(), "%d vs %d", a, b)
	}

	// Sorting the strings sorts the IDs.
	sortedIDs := slices.Clone(ids)
	slices.Sort(sortedIDs)
	strs := make([]string, len(ids))
	for i, id := range ids {
		strs[i] = id.Base32()
	}
	slices.Sort(strs)
	for i := range strs {
		require.Equal(t, sortedIDs[i].Base32(), strs[i])
	}
}

func TestValue(t *testing.T) {
	for _, id := range []ID{0, 1, vectorID, math.MaxInt64} {
		v, err := id.Value()
		require.NoError(t, err)
		require.IsType(t, int64(0), v)
		assert.Equal(t, int64(id), v)
		assert.True(t, driver.IsValue(v))
	}
}

// TestValueRefusesNegative: a negative ID is not stored, since Scan would
// refuse to read it back.
func TestValueRefusesNegative(t *testing.T) {
	for _, id := range []ID{-1, math.MinInt64} {
		v, err := id.Value()
		require.ErrorIs(t, err, ErrInvalidID)
		assert.Contains(t, err.Error(), ID(id).String())
		assert.Nil(t, v)
	}
}

func TestScanAccepts(t *testing.T) {
	tests := []struct {
		name string
		src  any
		want ID
	}{
		{"int64", int64(vectorID), vectorID},
		{"int64 zero", int64(0), 0},
		{"int64 max", int64(math.MaxInt64), math.MaxInt64},
		{"bytes", []byte("141264821508263936"), vectorID},
		{"bytes max", []byte("9223372036854775807"), math.MaxInt64},
		{"string", "141264821508263936", vectorID},
		{"string zero", "0", 0},
		{"string leading zeros", "0042", 42},
		{"CHAR(n) padded string", "5   ", 5},
		{"CHAR(n) padded bytes", []byte("141264821508263936  "), vectorID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var id ID
			require.NoError(t, id.Scan(tt.src))
			assert.Equal(t, tt.want, id)
		})
	}
}

func TestScanRejects(t *testing.T) {
	tests := []struct {
		name string
		src  any
		msg  string
	}{
		{"negative int64", int64(-1), "-1"},
		{"min int64", int64(math.MinInt64), "-9223372036854775808"},
		{"float64", float64(1.5), "float64"},
		{"integral float64", float64(7), "float64"},
		{"nil", nil, "<nil>"},
		{"bool", true, "bool"},
		{"int", int(5), "int"},
		{"uint64", uint64(5), "uint64"},
		{"int32", int32(5), "int32"},
		{"garbage string", "abc", `"abc"`},
		{"garbage bytes", []byte("abc"), `"abc"`},
		{"negative string", "-1", `"-1"`},
		{"negative bytes", []byte("-1"), `"-1"`},
		{"empty string", "", "empty"},
		{"empty bytes", []byte{}, "empty"},
		{"nil bytes", []byte(nil), "empty"},
		{"overflow string", "9223372036854775808", "above 2^63-1"},
		{"wrapping string", "18446744073709551620", `"18446744073709551620"`},
		{"spaced string", " 1", `" 1"`},
		{"inner space", "1 2", `"1 2"`},
		{"only spaces", "   ", "empty"},
		{"trailing tab", "5\t", `"5\t"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := ID(42)
			err := id.Scan(tt.src)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidID)
			assert.Contains(t, err.Error(), tt.msg)
			assert.Equal(t, ID(42), id, "a failed Scan must leave the ID alone")
		})
	}
}

func TestValueScanRoundTrip(t *testing.T) {
	for _, id := range randomIDs(8, 2000) {
		v, err := id.Value()
		require.NoError(t, err)
		var back ID
		require.NoError(t, back.Scan(v))
		require.Equal(t, id, back)

		require.NoError(t, back.Scan([]byte(id.String())))
		require.Equal(t, id, back)
	}
}
