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

	"github.com/snowlab/snowlab/mask"
)

// maskKeyEnv holds the mask key when -key-file is not given, in the forms
// a key file takes (hex, in practice: a variable cannot hold every byte).
const maskKeyEnv = "SNOWID_MASK_KEY"

// maskFlags are the flags mask and unmask share: where the key is and its
// version.
type maskFlags struct {
	keyFile string
	version int
}

func addMaskFlags(fs *flag.FlagSet) *maskFlags {
	mf := &maskFlags{}
	fs.StringVar(&mf.keyFile, "key-file", "", "`file` holding the key: 16, 24 or 32 raw bytes, or their hex (default $"+maskKeyEnv+")")
	fs.IntVar(&mf.version, "key-version", 0, fmt.Sprintf("`version` of the key, 0 to %d: the last character of the strings it makes", mask.MaxVersion))
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

// parseMaskKey reads a key: hex digits (32, 48 or 64 of either case, with
// surrounding space such as a final newline) or else exactly 16, 24 or 32
// raw bytes. Content made only of hex digits is read as hex even at 16,
// 24 or 32 characters: a random raw key is made only of hex digits with
// probability below (22/256)^16 = 1e-17, and a short hex key with a
// newline must not pass as a raw one. The error says the length, never a
// byte of the key.
func parseMaskKey(data []byte) ([]byte, error) {
	if text := bytes.TrimSpace(data); len(text) > 0 && isHex(text) {
		switch len(text) {
		case 32, 48, 64:
			secret := make([]byte, len(text)/2)
			if _, err := hex.Decode(secret, text); err != nil {
				return nil, errors.New("is not hex") // unreachable: isHex held
			}
			return secret, nil
		}
		return nil, fmt.Errorf("holds %d hex digits: want 32, 48 or 64 (16, 24 or 32 bytes)", len(text))
	}
	switch len(data) {
	case 16, 24, 32:
		return bytes.Clone(data), nil
	}
	return nil, fmt.Errorf("holds %d bytes: want 16, 24 or 32 raw bytes, or their hex", len(data))
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func runMask(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mask", "[-key-file FILE] [-key-version V] ID...", stderr)
	mf := addMaskFlags(fs)
	addNote(fs, idFormsHelp)
	ids, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(ids) == 0 {
		return usageError(fs, "no IDs given")
	}
	ring, err := mf.keyring()
	if err != nil {
		return fail(stderr, "mask: %v", err)
	}
	return eachArg(ids, stdout, stderr, "mask", func(arg string) (string, error) {
		id, err := parseIDArg(arg)
		if err != nil {
			return "", err
		}
		return ring.Encode(id)
	})
}

func runUnmask(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("unmask", "[-key-file FILE] [-key-version V] STRING...", stderr)
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
		id, err := ring.Decode(arg)
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
