package mask

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/mask/internal/ff1"
)

// Fixed secrets: the tests are deterministic, and so are the figures the
// statistical ones report.
var (
	secret16 = mustHex("000102030405060708090a0b0c0d0e0f")
	secret24 = mustHex("f0e1d2c3b4a5968778695a4b3c2d1e0f0123456789abcdef")
	secret32 = mustHex("2b7e151628aed2a6abf7158809cf4f3cef4359d8d580aa4f7f036d6f04fc6a94")
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func mustRing(t testing.TB, newest Key, older ...Key) *Keyring {
	t.Helper()
	k, err := NewKeyring(newest, older...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestAlphabet(t *testing.T) {
	if len(alphabet) != radix {
		t.Fatalf("alphabet has %d characters, radix is %d", len(alphabet), radix)
	}
	if checkBits != 17 || idHiBits+halfBits != 63 {
		t.Fatalf("checkBits %d, idHiBits %d: the block is 80 bits, the ID 63", checkBits, idHiBits)
	}
	for i := 1; i < len(alphabet); i++ {
		if alphabet[i-1] >= alphabet[i] {
			t.Errorf("alphabet not in byte order at %d: strings would not sort as their numerals", i)
		}
	}
	for _, c := range "ilouILOU" {
		if strings.ContainsRune(alphabet, c) {
			t.Errorf("alphabet holds %q, which Crockford's leaves out", c)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	now, err := snowlab.DefaultLayout.Compose(time.Date(2025, 1, 24, 19, 35, 58, 21e6, time.UTC), 37, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := []snowlab.ID{0, 1, 2, 31, 32, 1<<40 - 1, 1 << 40, 1<<62 + 12345, 1<<63 - 1, now}
	for _, key := range []Key{{0, secret16}, {17, secret24}, {MaxVersion, secret32}} {
		k := mustRing(t, key)
		seen := map[string]bool{}
		for _, id := range ids {
			s, err := k.Encode(id)
			if err != nil {
				t.Fatalf("Encode(%d): %v", id, err)
			}
			if len(s) != Len || strings.Trim(s, alphabet) != "" {
				t.Errorf("Encode(%d) = %q: want %d characters of %s", id, s, Len, alphabet)
			}
			if s[Len-1] != alphabet[key.Version] {
				t.Errorf("Encode(%d) = %q: last character is not version %d", id, s, key.Version)
			}
			if seen[s] {
				t.Errorf("Encode(%d) = %q twice", id, s)
			}
			seen[s] = true
			got, err := k.Decode(s)
			if err != nil || got != id {
				t.Errorf("Decode(%q) = %d, %v; want %d", s, got, err, id)
			}
			b, err := k.AppendEncode([]byte("x/"), id)
			if err != nil || string(b) != "x/"+s {
				t.Errorf("AppendEncode(x/, %d) = %q, %v; want %q", id, b, err, "x/"+s)
			}
		}
	}
}

// TestIsFF1 ties the public form to the numeral interface of the FF1
// cipher that NIST's samples test: the block is FF1 (radix 32, 16
// numerals, the version as a one-byte tweak) of the ID's 80-bit value
// written in 16 numerals, in the alphabet, then the version.
func TestIsFF1(t *testing.T) {
	c, err := ff1.New(secret32, 32, 16, []byte{5})
	if err != nil {
		t.Fatal(err)
	}
	k := mustRing(t, Key{5, secret32})
	for _, id := range []snowlab.ID{0, 1, 1 << 40, 1<<63 - 1, 141264821508263936} {
		x := make([]uint16, 16)
		v := uint64(id)
		for i := 15; i >= 0; i-- { // 80 bits: the top 17 are zero
			x[i] = uint16(v & 31)
			v >>= 5
		}
		y, err := c.Encrypt(x)
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for _, d := range y {
			want.WriteByte(alphabet[d])
		}
		want.WriteByte(alphabet[5])
		got, _ := k.Encode(id)
		if got != want.String() {
			t.Errorf("Encode(%d) = %q, FF1 gives %q", id, got, want.String())
		}
	}
}

// TestPublishedForms pins the public form of a few IDs under a fixed key:
// every link already handed out depends on it, so a change here is a
// format change, not a refactoring.
func TestPublishedForms(t *testing.T) {
	k := mustRing(t, Key{0, secret16})
	for id, want := range map[snowlab.ID]string{
		0:                  "jephjypnetdh5sk60",
		1:                  "1d64eg3w100femfj0",
		141264821508263936: "v1phqwa3ks4a63a00",
		1<<63 - 1:          "n9s6mzhfqz4vc22x0",
	} {
		if got, _ := k.Encode(id); got != want {
			t.Errorf("Encode(%d) = %q, want %q", id, got, want)
		}
	}
}

func TestZeroKeyring(t *testing.T) {
	var k Keyring
	if _, err := k.Encode(1); !errors.Is(err, snowlab.ErrInvalidConfig) {
		t.Errorf("Encode on the zero Keyring: err = %v, want ErrInvalidConfig", err)
	}
	if _, err := k.Decode("0000000000000000" + "0"); !errors.Is(err, snowlab.ErrInvalidID) {
		t.Errorf("Decode on the zero Keyring: err = %v, want ErrInvalidID", err)
	}
}

func TestEncodeNegative(t *testing.T) {
	k := mustRing(t, Key{0, secret16})
	if _, err := k.Encode(-1); !errors.Is(err, snowlab.ErrInvalidID) || !strings.Contains(err.Error(), "-1") {
		t.Errorf("Encode(-1) err = %v, want ErrInvalidID naming -1", err)
	}
	dst, err := k.AppendEncode([]byte("keep"), -5)
	if !errors.Is(err, snowlab.ErrInvalidID) || string(dst) != "keep" {
		t.Errorf("AppendEncode(keep, -5) = %q, %v; want keep, ErrInvalidID", dst, err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	k := mustRing(t, Key{3, secret16})
	good, err := k.Encode(141264821508263936)
	if err != nil {
		t.Fatal(err)
	}
	swap := func(i int, c byte) string { return good[:i] + string(c) + good[i+1:] }
	for _, tc := range []struct {
		name, s, want string
	}{
		{"empty", "", "0 characters"},
		{"short", good[:Len-1], "16 characters"},
		{"long", good + "0", "18 characters"},
		{"upper case", strings.ToUpper(good), `"P" at 0`},
		{"i", swap(4, 'i'), `"i" at 4`},
		{"l", swap(9, 'l'), `"l" at 9`},
		{"o", swap(15, 'o'), `"o" at 15`},
		{"u", swap(2, 'u'), `"u" at 2`},
		{"space", swap(0, ' '), `" " at 0`},
		{"non-ASCII", good[:15] + "é", `"\xc3" at 15`},
		{"version not held", swap(Len-1, '4'), "key version 4, which the keyring (versions [3]) does not hold"},
		{"version outside the alphabet", swap(Len-1, 'u'), `"u" at 16`},
		{"very long", strings.Repeat("0", 10000), "(10000 bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := k.Decode(tc.s)
			if !errors.Is(err, snowlab.ErrInvalidID) {
				t.Fatalf("Decode(%q) err = %v, want ErrInvalidID", tc.s, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to say %q", err, tc.want)
			}
			if len(tc.s) <= 64 && !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.s)) {
				t.Errorf("err = %q does not quote the input", err)
			}
			if len(err.Error()) > 300 {
				t.Errorf("err is %d bytes: too long for a log line", len(err.Error()))
			}
		})
	}
}

// chanceBound is the most strings out of n that may pass the 17-bit check
// by chance: the count is Binomial(n, 2^-17), close to Poisson with mean
// n/2^17, and the bound is the least k that count exceeds with probability
// below 1e-9. The key and inputs are fixed, so a failure means the check
// is weaker than documented, not bad luck.
func chanceBound(n int) int {
	mean := float64(n) / (1 << checkBits)
	term := math.Exp(-mean) // P(count = 0)
	cdf, k := term, 0
	for 1-cdf >= 1e-9 {
		k++
		term *= mean / float64(k)
		cdf += term
	}
	return k
}

// TestTamperedFails changes each of the 16 block characters of 400
// strings to each of the 31 others: 198,400 tampered strings, each of
// which must fail with ErrInvalidID but for the 2^-17 chance the package
// documents.
func TestTamperedFails(t *testing.T) {
	k := mustRing(t, Key{0, secret32})
	const ids = 400
	tried, passed := 0, 0
	for id := snowlab.ID(141264821508263936); id < 141264821508263936+ids; id++ {
		s, _ := k.Encode(id)
		b := []byte(s)
		for i := 0; i < blockLen; i++ {
			orig := b[i]
			for j := 0; j < radix; j++ {
				if alphabet[j] == orig {
					continue
				}
				b[i] = alphabet[j]
				got, err := k.Decode(string(b))
				tried++
				switch {
				case err == nil:
					passed++
					if got == id {
						t.Fatalf("%q and %q decode to the same ID %d", s, b, id)
					}
				case !errors.Is(err, snowlab.ErrInvalidID):
					t.Fatalf("Decode(%q) err = %v, want ErrInvalidID", b, err)
				}
			}
			b[i] = orig
		}
	}
	t.Logf("%d of %d tampered strings passed the check (2^-17 predicts %.2f, bound %d)", passed, tried, float64(tried)/(1<<checkBits), chanceBound(tried))
	if bound := chanceBound(tried); passed > bound {
		t.Errorf("%d of %d tampered strings passed, above the bound %d for a 17-bit check", passed, tried, bound)
	}
}

// TestWrongKeyFails decodes 20,000 strings with another key of the same
// version: each must fail but for the 2^-17 chance.
func TestWrongKeyFails(t *testing.T) {
	right := mustRing(t, Key{0, secret32})
	wrong := mustRing(t, Key{0, secret24})
	const n = 20000
	passed := 0
	for id := snowlab.ID(1 << 50); id < 1<<50+n; id++ {
		s, _ := right.Encode(id)
		_, err := wrong.Decode(s)
		switch {
		case err == nil:
			passed++
		case !errors.Is(err, snowlab.ErrInvalidID):
			t.Fatalf("Decode(%q) err = %v, want ErrInvalidID", s, err)
		}
	}
	t.Logf("%d of %d strings passed under the wrong key (2^-17 predicts %.2f, bound %d)", passed, n, float64(n)/(1<<checkBits), chanceBound(n))
	if bound := chanceBound(n); passed > bound {
		t.Errorf("%d of %d strings passed under the wrong key, above the bound %d", passed, n, bound)
	}
}

// TestVersionIsBound: the version is FF1's tweak, so a string whose
// version character is changed fails even under a keyring that holds the
// same secret under the other version.
func TestVersionIsBound(t *testing.T) {
	v0 := mustRing(t, Key{0, secret32})
	v1 := mustRing(t, Key{1, secret32})
	const n = 2000
	passed := 0
	for id := snowlab.ID(0); id < n; id++ {
		s, _ := v0.Encode(id)
		if _, err := v1.Decode(s[:blockLen] + "1"); err == nil {
			passed++
		} else if !errors.Is(err, snowlab.ErrInvalidID) {
			t.Fatal(err)
		}
	}
	if bound := chanceBound(n); passed > bound {
		t.Errorf("%d of %d strings passed with their version changed, above the bound %d", passed, n, bound)
	}
}

func TestRotation(t *testing.T) {
	old := mustRing(t, Key{0, secret16})
	ring := mustRing(t, Key{1, secret32}, Key{0, secret16})
	if ring.Newest() != 1 || fmt.Sprint(ring.Versions()) != "[0 1]" {
		t.Fatalf("Newest %d, Versions %v; want 1, [0 1]", ring.Newest(), ring.Versions())
	}
	for _, id := range []snowlab.ID{0, 42, 1<<63 - 1} {
		s0, _ := old.Encode(id)
		s1, _ := ring.Encode(id)
		if s1[Len-1] != '1' || s1[:blockLen] == s0[:blockLen] {
			t.Errorf("Encode(%d) = %q after rotation, %q before: want version 1 and a new block", id, s1, s0)
		}
		if got, err := ring.Decode(s0); err != nil || got != id {
			t.Errorf("the rotated ring decodes the old %q as %d, %v; want %d", s0, got, err, id)
		}
		if got, err := ring.Decode(s1); err != nil || got != id {
			t.Errorf("Decode(%q) = %d, %v; want %d", s1, got, err, id)
		}
		if _, err := old.Decode(s1); !errors.Is(err, snowlab.ErrInvalidID) || !strings.Contains(err.Error(), "key version 1") {
			t.Errorf("the old ring decodes the new %q: err = %v, want ErrInvalidID naming version 1", s1, err)
		}
	}
}

func TestNewKeyringRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		newest Key
		older  []Key
		want   string
	}{
		{"version -1", Key{-1, secret16}, nil, "version -1 outside 0..31"},
		{"version 32", Key{32, secret16}, nil, "version 32 outside 0..31"},
		{"older version 40", Key{0, secret16}, []Key{{40, secret32}}, "version 40"},
		{"version twice", Key{2, secret16}, []Key{{2, secret32}}, "version 2 given twice"},
		{"no secret", Key{0, nil}, nil, "0 bytes"},
		{"15 bytes", Key{0, secret16[:15]}, nil, "15 bytes"},
		{"33 bytes", Key{0, append(append([]byte{}, secret32...), 7)}, nil, "33 bytes"},
		{"older of 20 bytes", Key{0, secret16}, []Key{{9, secret32[:20]}}, "version 9 has a secret of 20 bytes"},
		{"one secret twice", Key{4, secret24}, []Key{{0, secret16}, {2, append([]byte{}, secret24...)}}, "versions 4 and 2 have the same secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewKeyring(tc.newest, tc.older...)
			if !errors.Is(err, snowlab.ErrInvalidConfig) {
				t.Fatalf("err = %v, want ErrInvalidConfig", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to say %q", err, tc.want)
			}
			noSecret(t, err.Error())
		})
	}
	if _, err := New(secret16[:8]); !errors.Is(err, snowlab.ErrInvalidConfig) {
		t.Errorf("New(8 bytes) err = %v, want ErrInvalidConfig", err)
	}
}

// noSecret fails when s holds any test secret, raw or in hex, or a long
// run of one.
func noSecret(t *testing.T, s string) {
	t.Helper()
	for _, sec := range [][]byte{secret16, secret24, secret32} {
		if bytes.Contains([]byte(s), sec[:8]) || strings.Contains(strings.ToLower(s), hex.EncodeToString(sec[:6])) ||
			strings.Contains(s, strings.Trim(fmt.Sprint(sec[:6]), "[]")) {
			t.Errorf("%q holds a secret", s)
		}
	}
}

// TestPrintingHidesSecrets: a Key or Keyring that reaches a log through
// fmt shows its versions, never its secret.
func TestPrintingHidesSecrets(t *testing.T) {
	key := Key{7, secret32}
	ring := mustRing(t, key, Key{1, secret16})
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		for _, v := range []any{key, &key, ring, *ring} {
			noSecret(t, fmt.Sprintf(verb, v))
		}
	}
	if got := fmt.Sprint(ring); got != "mask.Keyring{Newest: 7, Versions: [1 7]}" {
		t.Errorf("Keyring prints as %q", got)
	}
	if got := fmt.Sprint(key); got != "mask.Key{Version: 7, Secret: 32 bytes}" {
		t.Errorf("Key prints as %q", got)
	}
}

// TestConcurrent shares one Keyring between goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	k := mustRing(t, Key{0, secret32})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				id := snowlab.ID(g)<<40 | snowlab.ID(i)
				s, err := k.Encode(id)
				if err == nil {
					var got snowlab.ID
					got, err = k.Decode(s)
					if err == nil && got != id {
						err = fmt.Errorf("Decode(Encode(%d)) = %d", id, got)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops sync.Pool entries at random: allocations are not the program's")
	}
	k := mustRing(t, Key{0, secret32})
	s, _ := k.Encode(12345)
	buf := make([]byte, 0, Len)
	for name, f := range map[string]func(){
		"AppendEncode": func() { buf, _ = k.AppendEncode(buf[:0], 12345) },
		"Decode":       func() { _, _ = k.Decode(s) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %.1f allocations per call, want 0", name, n)
		}
	}
	if n := testing.AllocsPerRun(1000, func() { s, _ = k.Encode(12345) }); n != 1 {
		t.Errorf("Encode: %.1f allocations per call, want 1 (the string)", n)
	}
}
