package snowidcli

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/snowlab/snowlab/mask"
	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// maskKeyEnv holds the mask key when -key-file is not given, in the forms
// a key file takes (hex, in practice: a variable cannot hold a NUL byte).
const maskKeyEnv = "SNOWID_MASK_KEY"

// maskFlags are the flags mask and unmask share: where the key is and its
// version.
type maskFlags struct {
	keyFile string
	version int
}

// maskKeyHelp is what the help of mask and unmask says about the key, as
// parseMaskKey reads it.
const maskKeyHelp = `The key, in -key-file or $` + maskKeyEnv + `, is 32, 48 or 64 hex digits
(either case; surrounding whitespace such as a final newline is ignored), or
exactly 16, 24 or 32 raw bytes. Content that is mostly hex digits (3/4 of what
is not whitespace) is never raw: a mistyped hex key is refused, naming the
first character out of place. The key is never printed.
`

func addMaskFlags(fs *flag.FlagSet) *maskFlags {
	mf := &maskFlags{}
	fs.StringVar(&mf.keyFile, "key-file", "", "`file` holding the key: 32, 48 or 64 hex digits, or 16, 24 or 32 raw bytes (default $"+maskKeyEnv+")")
	fs.IntVar(&mf.version, "key-version", 0, fmt.Sprintf("`version` of the key, 0 to %d: the last character of the strings it makes", mask.MaxVersion))
	addNote(fs, maskKeyHelp)
	return mf
}

// keyring reads the key from -key-file, else from $SNOWID_MASK_KEY. Its
// error names where the key came from and what was wrong with it, never
// the key.
func (mf *maskFlags) keyring() (*mask.Keyring, error) {
	if mf.version < 0 || mf.version > mask.MaxVersion {
		return nil, fmt.Errorf("-key-version %d: want 0 to %d", mf.version, mask.MaxVersion)
	}
	var data []byte
	var source string
	switch env := os.Getenv(maskKeyEnv); {
	case mf.keyFile != "":
		source = fmt.Sprintf("-key-file %q", mf.keyFile)
		var err error
		if data, err = os.ReadFile(mf.keyFile); err != nil {
			// The path error names the file and the reason.
			return nil, fmt.Errorf("-key-file: %w", err)
		}
	case env != "":
		source, data = "$"+maskKeyEnv, []byte(env)
	default:
		return nil, fmt.Errorf("no key: give -key-file FILE or set $%s", maskKeyEnv)
	}
	secret, err := parseMaskKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s %v", source, err)
	}
	return mask.NewKeyring(mask.Key{Version: mf.version, Secret: secret})
}

// parseMaskKey reads a key in one of two forms:
//
//   - hex: 32, 48 or 64 hex digits of either case, surrounding whitespace
//     (a final newline) ignored: a key of 16, 24 or 32 bytes;
//   - raw: exactly 16, 24 or 32 bytes, taken as they are, unless at least
//     3/4 of the characters that are not whitespace are hex digits.
//
// Content made only of hex digits is hex, or refused at another length,
// never raw: a random raw key is all hex digits with odds (22/256)^16 =
// 1e-17, and 16 hex digits (an 8-byte key, too short) must not pass as a
// 16-byte raw one. Mostly hex digits is a mistyped hex key ("O" for "0", a
// digit lost or doubled), refused with the first character out of place,
// never raw: 32 hex digits with one typo are 32 bytes, which would
// otherwise be an AES-256 key nobody holds. A random raw key is that much
// hex (each byte a hex digit with odds 22/256) with odds 2e-10 at 16
// bytes, 5e-15 at 24 and 1e-19 at 32. Any other text (a passphrase of 16,
// 24 or 32 characters) is raw, as the command has always read it. The
// error says lengths and positions, never a byte of the key.
func parseMaskKey(data []byte) ([]byte, error) {
	text := bytes.TrimSpace(data)
	hexDigits, solid, firstBad := hexCount(text)
	switch {
	case len(text) > 0 && hexDigits == len(text):
		switch len(text) {
		case 32, 48, 64:
			secret := make([]byte, len(text)/2)
			if _, err := hex.Decode(secret, text); err != nil {
				return nil, errors.New("is not hex") // unreachable: all hex digits
			}
			return secret, nil
		}
		return nil, fmt.Errorf("holds %d hex digits: want 32, 48 or 64 (16, 24 or 32 bytes)", len(text))
	case solid > 0 && 4*hexDigits >= 3*solid:
		// The position counts from the start of the content, as an
		// editor shows it: the whitespace cut off before it too.
		at := bytes.Index(data, text) + firstBad + 1
		switch len(text) {
		case 32, 48, 64:
			return nil, fmt.Errorf("looks like a %d-digit hex key but character %d is not a hex digit", len(text), at)
		}
		return nil, fmt.Errorf("looks like a hex key but character %d of %d is not a hex digit: want 32, 48 or 64 hex digits", at, len(data))
	}
	switch len(data) {
	case 16, 24, 32:
		return bytes.Clone(data), nil
	}
	return nil, fmt.Errorf("holds %d bytes: want 16, 24 or 32 raw bytes, or 32, 48 or 64 hex digits", len(data))
}

// hexCount returns how many bytes of b are hex digits, how many are not
// whitespace, and the index of the first that is not a hex digit (-1 if
// none).
func hexCount(b []byte) (hexDigits, solid, firstBad int) {
	firstBad = -1
	for i, c := range b {
		switch {
		case '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			hexDigits++
		case firstBad < 0:
			firstBad = i
		}
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			solid++
		}
	}
	return hexDigits, solid, firstBad
}

func runMask(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mask", stderr)
	mf := addMaskFlags(fs)
	ids, code, ok := parseIDArgs(fs, args)
	if !ok {
		return code
	}
	ring, err := mf.keyring()
	if err != nil {
		return fail(stderr, "mask: %v", err)
	}
	return eachArg(ids, stdout, stderr, "mask", func(arg string) (string, error) {
		id, err := idtext.Parse(arg)
		if err != nil {
			return "", err
		}
		return ring.Encode(id)
	})
}

func runUnmask(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("unmask", stderr)
	mf := addMaskFlags(fs)
	strs, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(strs) == 0 {
		return usageError(fs, "no strings given")
	}
	ring, err := mf.keyring()
	if err != nil {
		return fail(stderr, "unmask: %v", err)
	}
	return eachArg(strs, stdout, stderr, "unmask", func(arg string) (string, error) {
		// Either case, as decode reads base32: the public form is lower
		// case (mask.Decode reads only that), but a string may have been
		// upper-cased on its way back (a log, a case-insensitive path).
		id, err := ring.Decode(strings.ToLower(arg))
		return id.String(), err
	})
}

// eachArg prints f of each argument on its own line. A bad argument is one
// line on stderr, in order with the output, and the others still run; the
// exit code is 2 if any was bad, 1 if writing the output failed.
func eachArg(args []string, stdout, stderr io.Writer, cmd string, f func(arg string) (string, error)) int {
	out := bufio.NewWriter(stdout)
	code := exitOK
	for _, arg := range args {
		line, err := f(arg)
		if err != nil {
			if err := out.Flush(); err != nil {
				return writeFailed(stderr, err)
			}
			code = fail(stderr, "%s %q: %v", cmd, arg, err)
			continue
		}
		// A failed write sticks to out and Flush reports it.
		out.WriteString(line)
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		return writeFailed(stderr, err)
	}
	return code
}
