package snowidcli

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/snowlab/snowlab/mask"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// markerHex is the key of the key-form tests in hex: "5ec7e7" ("secret")
// runs through it, so that a key printed whole or in part shows as the
// marker, in hex or as the raw bytes it stands for.
var markerHex = strings.Repeat("5ec7e7a1", 8) // 64 digits, 32 bytes

func markerBytes(n int) []byte {
	b, _ := hex.DecodeString(markerHex[:2*n])
	return b
}

// typo returns s with the character at 1-based position at replaced by c.
func typo(s string, at int, c byte) string { return s[:at-1] + string(c) + s[at:] }

// leaksNoMarker fails when an output holds 6 bytes in a row of content
// (the key as given), or of the marker in hex of either case or as raw
// bytes or as fmt prints them.
func leaksNoMarker(t *testing.T, content []byte, out ...string) {
	t.Helper()
	raw := markerBytes(32)
	bad := []string{"5ec7e7", "5EC7E7", string(raw[:3]), strings.Trim(fmt.Sprint(raw[:3]), "[]")}
	text := bytes.TrimSpace(content)
	for i := 0; i+6 <= len(text); i++ {
		bad = append(bad, string(text[i:i+6]))
	}
	for _, o := range out {
		for _, b := range bad {
			if strings.Contains(o, b) {
				t.Errorf("output holds %q of the key: %q", b, o)
			}
		}
	}
}

// keySources runs snowid with the key content in a key file and in
// $SNOWID_MASK_KEY, and returns what each said, by the source's name in
// error lines.
func keySources(t *testing.T, content []byte, args ...string) map[string][3]any {
	t.Helper()
	got := map[string][3]any{}
	path := keyFile(t, content)
	t.Setenv(maskKeyEnv, "")
	stdout, stderr, code := snowid(t, append([]string{args[0], "-key-file", path}, args[1:]...)...)
	got[fmt.Sprintf("-key-file %q", path)] = [3]any{stdout, stderr, code}
	t.Setenv(maskKeyEnv, string(content))
	stdout, stderr, code = snowid(t, args...)
	got["$"+maskKeyEnv] = [3]any{stdout, stderr, code}
	return got
}

// TestMaskKeyFormsAccepted: each form a key takes, from a file and from
// $SNOWID_MASK_KEY, gives the library's public form under the key it
// stands for.
func TestMaskKeyFormsAccepted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		secret  []byte
	}{
		{"64 hex digits", markerHex, markerBytes(32)},
		{"48 hex digits", markerHex[:48], markerBytes(24)},
		{"32 hex digits", markerHex[:32], markerBytes(16)},
		{"hex and newline", markerHex + "\n", markerBytes(32)},
		{"hex and CRLF", markerHex[:32] + "\r\n", markerBytes(16)},
		{"upper-case hex in spaces", " \t" + strings.ToUpper(markerHex) + "\n\n", markerBytes(32)},
		{"32 raw bytes", string(markerBytes(32)), markerBytes(32)},
		{"24 raw bytes", string(markerBytes(24)), markerBytes(24)},
		{"16 raw bytes", string(markerBytes(16)), markerBytes(16)},
		// Text that is not mostly hex is raw: 4 of its 30 non-space
		// characters are hex digits (E, B, A, E).
		{"32 bytes of text", "YELLOW SUBMARINEYELLOW SUBMARINE", []byte("YELLOW SUBMARINEYELLOW SUBMARINE")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ring, err := mask.New(tc.secret)
			require.NoError(t, err)
			want, err := ring.Encode(42)
			require.NoError(t, err)
			for source, r := range keySources(t, []byte(tc.content), "mask", "42", "b32:1A") {
				assert.Equal(t, exitOK, r[2], "%s: %s", source, r[1])
				assert.Empty(t, r[1], source)
				assert.Equal(t, want+"\n"+want+"\n", r[0], source)
				leaksNoMarker(t, []byte(tc.content), r[0].(string), r[1].(string))
			}
		})
	}
}

// TestMaskKeyFormsRefused: a key that is no form, or a mistyped one, is
// one line naming the source and the form it looked like, exit 2, for mask
// and unmask alike, and never a byte of the key.
func TestMaskKeyFormsRefused(t *testing.T) {
	var pairs []string
	for i := 0; i < len(markerHex); i += 2 {
		pairs = append(pairs, markerHex[i:i+2])
	}
	spaced := strings.Join(pairs, " ") // 95 characters
	for _, tc := range []struct {
		name, content, says string
	}{
		// The case: 32 bytes, once silently an AES-256 key.
		{"32 hex digits, O for 0", typo(markerHex[:32], 17, 'O'), "looks like a 32-digit hex key but character 17 is not a hex digit"},
		{"32 hex digits, O for 0, newline", typo(markerHex[:32], 17, 'O') + "\n", "looks like a 32-digit hex key but character 17 is not a hex digit"},
		{"64 hex digits, l for 1", typo(markerHex, 64, 'l'), "looks like a 64-digit hex key but character 64 is not a hex digit"},
		{"48 hex digits, g", typo(markerHex[:48], 1, 'g'), "looks like a 48-digit hex key but character 1 is not a hex digit"},
		{"indented, counted from the start", "  " + typo(markerHex, 17, 'O'), "looks like a 64-digit hex key but character 19 is not a hex digit"},
		// A full-width zero is 3 bytes: 32 in all here, raw length.
		{"a non-ASCII zero, 32 bytes", markerHex[:29] + "\uff10", "looks like a 32-digit hex key but character 30 is not a hex digit"},
		{"a non-ASCII zero, 34 bytes", markerHex[:16] + "\uff10" + markerHex[17:32], "looks like a hex key but character 17 of 34 is not a hex digit"},
		{"63 digits and a typo", typo(markerHex[:63], 5, 'x'), "looks like a hex key but character 5 of 63 is not a hex digit"},
		{"16 bytes, mostly hex", typo(markerHex[:16], 16, 'O'), "looks like a hex key but character 16 of 16 is not a hex digit"},
		{"hex bytes spaced", spaced + "\n", "looks like a hex key but character 3 of 96 is not a hex digit"},
		{"63 hex digits", markerHex[:63] + "\n", "holds 63 hex digits: want 32, 48 or 64"},
		{"16 hex digits", markerHex[:16], "holds 16 hex digits: want 32, 48 or 64"},
		{"20 raw bytes", string(markerBytes(20)), "holds 20 bytes: want 16, 24 or 32 raw bytes, or 32, 48 or 64 hex digits"},
		{"33 raw bytes", string(markerBytes(32)) + "\n", "holds 33 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range [][]string{{"mask", "42"}, {"unmask", "0000000000000000a"}} {
				for source, r := range keySources(t, []byte(tc.content), cmd...) {
					assert.Equal(t, exitUsage, r[2], source)
					assert.Empty(t, r[0], source)
					oneErrorLine(t, r[1].(string), "snowid: "+cmd[0]+": "+source+" "+tc.says)
					leaksNoMarker(t, []byte(tc.content), r[0].(string), r[1].(string))
				}
			}
		})
	}
}
