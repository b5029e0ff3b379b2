package snowidcli

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// digitsB32 is the base32 form, only digits, of ID 109286101259396097
// (2024-10-28T13:43:56.977Z, node 834, seq 1025), as the issue found it:
// ID.Base32 prints it, and bare it would read as the decimal 312345678901.
const digitsB32 = "0312345678901"

func mustB32(t *testing.T, s string) snowlab.ID {
	t.Helper()
	id, err := snowlab.ParseBase32(s)
	require.NoError(t, err)
	return id
}

// TestIDArgReadsTwoWays: 13 digits that are two different IDs, decimal and
// base32, are refused by every command that takes an ID in either form,
// exit 2, in one line naming the argument and how to write each reading.
func TestIDArgReadsTwoWays(t *testing.T) {
	noKeyEnv(t)
	key := keyFile(t, maskKey)
	for _, tc := range []struct {
		arg, dec, other string
	}{
		{digitsB32, "312345678901", "312345678901"},
		{"0000000000010", "10", "10"},
		{"7999999999999", "7999999999999", "07999999999999"}, // the largest first digit base32 takes
		{"1234567890123", "1234567890123", "01234567890123"},
	} {
		b32 := strconv.FormatInt(int64(mustB32(t, tc.arg)), 10)
		for _, cmd := range [][]string{{"decode"}, {"decode", "-json"}, {"mask", "-key-file", key}} {
			t.Run(strings.Join(append(cmd[:1:1], tc.arg), " "), func(t *testing.T) {
				stdout, stderr, code := snowid(t, append(cmd, tc.arg)...)
				assert.Equal(t, exitUsage, code)
				assert.Empty(t, stdout)
				oneErrorLine(t, stderr,
					`snowid: `+cmd[0]+` "`+tc.arg+`": snowlab: invalid ID: "`+tc.arg+`" reads two ways: `,
					"write dec:"+tc.arg+" (or "+tc.other+") for the decimal ID "+tc.dec+",",
					"b32:"+tc.arg+" for the base32 ID "+b32+"\n")
			})
		}
	}

	t.Run("exact message", func(t *testing.T) {
		_, stderr, _ := snowid(t, "decode", digitsB32)
		assert.Equal(t, `snowid: decode "0312345678901": snowlab: invalid ID: "0312345678901" reads two ways: `+
			`write dec:0312345678901 (or 312345678901) for the decimal ID 312345678901, `+
			`b32:0312345678901 for the base32 ID 109286101259396097`+"\n", stderr)
	})
}

// TestIDArgBase32RoundTrip: ID.Base32, written with b32:, reads back as the
// ID; and bare it reads back as the ID or is refused, never as another ID.
// The IDs are random (a fixed seed) with their last 12 base32 characters
// forced to digits for half of them, so that both cases occur.
func TestIDArgBase32RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 7))
	refused := 0
	for i := 0; i < 20000; i++ {
		id := snowlab.ID(r.Int64())
		if i%2 == 0 {
			// Keep the top 3 bits (the first character, 0-7) and
			// make each other 5-bit group a digit.
			u := uint64(id) &^ (1<<60 - 1)
			for g := 0; g < 12; g++ {
				u |= uint64(r.IntN(10)) << (5 * g)
			}
			id = snowlab.ID(u)
		}
		b32 := id.Base32()
		got, err := idtext.Parse("b32:" + b32)
		require.NoError(t, err, b32)
		require.Equal(t, id, got, b32)
		got, err = idtext.Parse("dec:" + id.String())
		require.NoError(t, err, id)
		require.Equal(t, id, got, id)

		got, err = idtext.Parse(b32)
		if err != nil {
			require.True(t, errors.Is(err, snowlab.ErrInvalidID), "%v", err)
			require.Contains(t, err.Error(), "reads two ways")
			refused++
			continue
		}
		require.Equal(t, id, got, "%s read bare", b32)
	}
	// Every forced one but the few that are the same ID both ways (none
	// here: those are below 10) and no random one, which is all digits
	// with odds (10/32)^12 = 9e-7.
	assert.Equal(t, 10000, refused)

	t.Run("through decode", func(t *testing.T) {
		id := mustB32(t, digitsB32)
		stdout, stderr, code := snowid(t, "decode", "-json", "b32:"+id.Base32(), "dec:"+id.String(), id.String())
		require.Equal(t, exitOK, code, stderr)
		recs := jsonRecords(t, stdout)
		require.Len(t, recs, 3)
		for _, r := range recs {
			assert.Equal(t, id.String(), r["id"])
			assert.Equal(t, digitsB32, r["base32"])
		}
	})
}
