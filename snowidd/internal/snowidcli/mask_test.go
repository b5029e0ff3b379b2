package snowidcli

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snowlab/snowlab/mask"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The mask tests' keys: fixed, so that a leak would show as these bytes.
var (
	maskKey   = bytes.Repeat([]byte{0xa7, 0x3c, 0x91, 0x5e}, 8) // 32 bytes
	otherKey  = bytes.Repeat([]byte{0x42, 0x17, 0xd9, 0x08}, 4) // 16 bytes
	maskIDs   = []string{"141264821508263936", "141264821508263937", "0", "9223372036854775807"}
	maskIDs32 = "03XEZKD8M4M00" // 141264821508263936 in base32
)

// keyFile writes data to a file of a fresh folder and returns its path.
func keyFile(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mask.key")
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

// noKeyEnv clears $SNOWID_MASK_KEY for the test, whatever the machine has.
func noKeyEnv(t *testing.T) {
	t.Helper()
	t.Setenv(maskKeyEnv, "")
}

// leaksNoKey fails when out holds a test key: raw, in hex of either case,
// or as fmt prints a byte slice.
func leaksNoKey(t *testing.T, out ...string) {
	t.Helper()
	for _, o := range out {
		for _, k := range [][]byte{maskKey, otherKey} {
			if bytes.Contains([]byte(o), k[:8]) || strings.Contains(strings.ToLower(o), hex.EncodeToString(k[:6])) ||
				strings.Contains(o, strings.Trim(fmt.Sprint(k[:6]), "[]")) {
				t.Errorf("output holds a key: %q", o)
			}
		}
	}
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestMaskRoundTrip(t *testing.T) {
	noKeyEnv(t)
	ring, err := mask.New(maskKey)
	require.NoError(t, err)
	for name, data := range map[string][]byte{
		"raw":              maskKey,
		"hex":              []byte(hex.EncodeToString(maskKey)),
		"hex and newline":  []byte(hex.EncodeToString(maskKey) + "\n"),
		"upper-case hex":   []byte(strings.ToUpper(hex.EncodeToString(maskKey)) + "\r\n"),
		"raw ending in LF": append(bytes.Clone(maskKey[:31]), '\n'),
	} {
		t.Run(name, func(t *testing.T) {
			f := keyFile(t, data)
			stdout, stderr, code := snowid(t, append([]string{"mask", "-key-file", f}, append(maskIDs, maskIDs32)...)...)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, stderr)
			got := lines(stdout)
			require.Len(t, got, len(maskIDs)+1)
			for i, s := range got {
				assert.Len(t, s, mask.Len)
				if name == "raw ending in LF" {
					continue // another key: only the shape is known
				}
				want, err := ring.Encode(mustParse(t, append(maskIDs, maskIDs[0])[i]))
				require.NoError(t, err)
				assert.Equal(t, want, s, "the library's form of %s", maskIDs[i%len(maskIDs)])
			}
			assert.Equal(t, got[0], got[len(maskIDs)], "decimal and base32 of one ID")

			stdout, stderr, code = snowid(t, append([]string{"unmask", "-key-file", f}, got...)...)
			require.Equal(t, exitOK, code, stderr)
			assert.Equal(t, append(append([]string{}, maskIDs...), maskIDs[0]), lines(stdout))
			leaksNoKey(t, stdout, stderr)
		})
	}
}

// TestMaskKeyFromEnv: $SNOWID_MASK_KEY holds the key when -key-file is not
// given, and -key-file wins over it.
func TestMaskKeyFromEnv(t *testing.T) {
	t.Setenv(maskKeyEnv, hex.EncodeToString(maskKey))
	fromEnv, stderr, code := snowid(t, "mask", maskIDs[0])
	require.Equal(t, exitOK, code, stderr)
	ring, _ := mask.New(maskKey)
	want, _ := ring.Encode(mustParse(t, maskIDs[0]))
	assert.Equal(t, want+"\n", fromEnv)

	fromFile, stderr, code := snowid(t, "mask", "-key-file", keyFile(t, otherKey), maskIDs[0])
	require.Equal(t, exitOK, code, stderr)
	other, _ := mask.New(otherKey)
	want, _ = other.Encode(mustParse(t, maskIDs[0]))
	assert.Equal(t, want+"\n", fromFile, "-key-file over the variable")

	stdout, stderr, code := snowid(t, "unmask", strings.TrimSpace(fromEnv))
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, maskIDs[0]+"\n", stdout)
}

func TestMaskKeyVersion(t *testing.T) {
	noKeyEnv(t)
	f := keyFile(t, maskKey)
	stdout, stderr, code := snowid(t, "mask", "-key-file", f, "-key-version", "5", "42")
	require.Equal(t, exitOK, code, stderr)
	s := strings.TrimSpace(stdout)
	assert.True(t, strings.HasSuffix(s, "5"), "%q names version 5", s)

	stdout, stderr, code = snowid(t, "unmask", "-key-file", f, "-key-version", "5", s)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "42\n", stdout)

	stdout, stderr, code = snowid(t, "unmask", "-key-file", f, s)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	oneErrorLine(t, stderr, "unmask", s, "key version 5", "versions [0]")
}

// TestMaskBadInput: every mistake is one line on stderr naming it, exit 2,
// and the arguments that are good are still answered; no output holds the
// key.
func TestMaskBadInput(t *testing.T) {
	noKeyEnv(t)
	good := keyFile(t, maskKey)
	ring, _ := mask.New(maskKey)
	s42, _ := ring.Encode(42)
	other, _ := mask.New(otherKey)
	s42other, _ := other.Encode(42)
	tampered := s42[:3] + string("0123456789abcdefghjkmnpqrstvwxyz"[(strings.IndexByte("0123456789abcdefghjkmnpqrstvwxyz", s42[3])+1)%32]) + s42[4:]

	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
		names  []string
	}{
		{"no key", []string{"mask", "1"}, "", []string{"no key", "-key-file", "$SNOWID_MASK_KEY"}},
		{"no key file", []string{"mask", "-key-file", "/nonexistent/mask.key", "1"}, "", []string{"/nonexistent/mask.key", "no such file"}},
		{"20 raw bytes", []string{"unmask", "-key-file", keyFile(t, maskKey[:20]), s42}, "", []string{"mask.key", "holds 20 bytes"}},
		{"31 hex digits", []string{"mask", "-key-file", keyFile(t, []byte(hex.EncodeToString(maskKey)[:31]+"\n")), "1"}, "", []string{"holds 31 hex digits"}},
		{"empty key file", []string{"mask", "-key-file", keyFile(t, nil), "1"}, "", []string{"holds 0 bytes"}},
		{"version 32", []string{"mask", "-key-file", good, "-key-version", "32", "1"}, "", []string{"-key-version 32", "0 to 31"}},
		{"version -1", []string{"mask", "-key-file", good, "-key-version", "-1", "1"}, "", []string{"-key-version -1"}},
		{"bad ID", []string{"mask", "-key-file", good, "abc", "42"}, s42 + "\n", []string{`mask "abc"`}},
		{"negative ID", []string{"mask", "-key-file", good, "42", "-5"}, s42 + "\n", []string{`mask "-5"`}},
		{"wrong key", []string{"unmask", "-key-file", good, s42other, s42}, "42\n", []string{`unmask "` + s42other + `"`, "fails its check"}},
		{"tampered", []string{"unmask", "-key-file", good, tampered}, "", []string{tampered, "fails its check"}},
		{"upper case, tampered", []string{"unmask", "-key-file", good, strings.ToUpper(tampered)}, "", []string{strings.ToUpper(tampered), "fails its check"}},
		{"U, in no case", []string{"unmask", "-key-file", good, "U" + strings.ToUpper(s42[1:])}, "", []string{"U" + strings.ToUpper(s42[1:]), `"u" at 0`}},
		{"short", []string{"unmask", "-key-file", good, s42[:10]}, "", []string{s42[:10], "want 17"}},
		{"an ID given to unmask", []string{"unmask", "-key-file", good, "42"}, "", []string{`unmask "42"`, "want 17"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := snowid(t, tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Equal(t, tc.stdout, stdout)
			oneErrorLine(t, stderr, tc.names...)
			leaksNoKey(t, stdout, stderr)
		})
	}
}

// unmask reads its strings in either case, as decode reads base32: it
// refused an upper-cased one, though decode takes 03XEZKD8M4M00 and
// 03xezkd8m4m00 alike.
func TestUnmaskEitherCase(t *testing.T) {
	noKeyEnv(t)
	good := keyFile(t, maskKey)
	ring, _ := mask.New(maskKey)
	s42, _ := ring.Encode(42)
	stdout, stderr, code := snowid(t, "unmask", "-key-file", good, strings.ToUpper(s42), s42)
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "42\n42\n", stdout)
	assert.Empty(t, stderr)
}

// TestMaskKeyFromEnvBad: a bad variable is named, its value never shown.
func TestMaskKeyFromEnvBad(t *testing.T) {
	t.Setenv(maskKeyEnv, hex.EncodeToString(maskKey)[:40])
	stdout, stderr, code := snowid(t, "mask", "1")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	oneErrorLine(t, stderr, "$SNOWID_MASK_KEY", "holds 40 hex digits")
	leaksNoKey(t, stderr)
}

// TestMaskUsage: no arguments is a usage error (exit 2, first line naming
// it); help prints the flags.
func TestMaskUsage(t *testing.T) {
	noKeyEnv(t)
	for _, cmd := range []string{"mask", "unmask"} {
		_, stderr, code := snowid(t, cmd, "-key-file", keyFile(t, maskKey))
		assert.Equal(t, exitUsage, code)
		assert.True(t, strings.HasPrefix(stderr, "snowid "+cmd+": no "), "stderr %q", stderr)

		_, stderr, code = snowid(t, cmd, "-key-file")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, lines(stderr)[0], "-key-file")

		stdout, stderr, code := snowid(t, "help", cmd)
		assert.Equal(t, exitOK, code)
		assert.Contains(t, stdout+stderr, "-key-version")
		assert.Contains(t, stdout+stderr, "SNOWID_MASK_KEY")
	}
	stdout, _, _ := snowid(t, "help")
	assert.Contains(t, stdout, "snowid mask ")
	assert.Contains(t, stdout, "snowid unmask ")
}
