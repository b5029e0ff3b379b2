package idtext

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
)

// digitsB32 is the base32 form, only digits, of ID 109286101259396097:
// bare it reads two ways (snowidcli's TestIDArgReadsTwoWays).
const digitsB32 = "0312345678901"

// TestParseOneWay: every way of writing an ID that reads one way only, and
// the ID it names.
func TestParseOneWay(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want snowlab.ID
	}{
		{"dec:" + digitsB32, 312345678901},
		{"DEC:" + digitsB32, 312345678901},
		{"b32:" + digitsB32, 109286101259396097},
		{"B32:" + digitsB32, 109286101259396097},
		{"312345678901", 312345678901},        // 12 digits: decimal only
		{"00312345678901", 312345678901},      // 14 digits: decimal only
		{"8123456789012", 8123456789012},      // base32 from 8 up is above 2^63-1
		{"9999999999999", 9999999999999},      // likewise
		{"0000000000007", 7},                  // the same ID both ways
		{"0000000000000", 0},                  // likewise
		{"03XEZKD8M4M00", 141264821508263936}, // a letter: base32 only
		{"O312345678901", 109286101259396097}, // O reads as 0: base32 only
		{"dec:9223372036854775807", 1<<63 - 1},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			got, err := Parse(tc.arg)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TimeFormat writes a layout's ticks with the digits they need, the
// same number for every tick: ".000" on a whole second of a 1 ms layout.
func TestTimeFormat(t *testing.T) {
	at := snowlab.DefaultLayout.Epoch.Add(90_000_000_000) // 2024-01-01T00:01:30Z
	l := snowlab.DefaultLayout
	assert.Equal(t, "2024-01-01T00:01:30.000Z", at.Format(TimeFormat(l)))
	l.Unit = 100_000 // 100 µs
	assert.Equal(t, "2024-01-01T00:01:30.000000Z", at.Format(TimeFormat(l)))
	l.Unit = 10 // 10 ns
	assert.Equal(t, "2024-01-01T00:01:30.000000000Z", at.Format(TimeFormat(l)))
}
