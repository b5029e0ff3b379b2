package ff1

import (
	"bytes"
	"crypto/aes"
	"encoding/hex"
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

const base36 = "0123456789abcdefghijklmnopqrstuvwxyz"

// nistSamples are the FF1 examples NIST publishes for SP 800-38G
// ("FF1samples.pdf", Samples 1-9): AES-128, -192 and -256, each with radix
// 10 and no tweak, radix 10 with a 10-byte tweak, and radix 36 with an
// 11-byte tweak. Numerals are written in 0-9a-z.
var nistSamples = []struct {
	name, key, tweak string
	radix            int
	pt, ct           string
}{
	{"1 AES-128", "2B7E151628AED2A6ABF7158809CF4F3C", "", 10, "0123456789", "2433477484"},
	{"2 AES-128", "2B7E151628AED2A6ABF7158809CF4F3C", "39383736353433323130", 10, "0123456789", "6124200773"},
	{"3 AES-128", "2B7E151628AED2A6ABF7158809CF4F3C", "3737373770717273373737", 36, "0123456789abcdefghi", "a9tv40mll9kdu509eum"},
	{"4 AES-192", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", "", 10, "0123456789", "2830668132"},
	{"5 AES-192", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", "39383736353433323130", 10, "0123456789", "2496655549"},
	{"6 AES-192", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", "3737373770717273373737", 36, "0123456789abcdefghi", "xbj3kv35jrawxv32ysr"},
	{"7 AES-256", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", "", 10, "0123456789", "6657667009"},
	{"8 AES-256", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", "39383736353433323130", 10, "0123456789", "1001623463"},
	{"9 AES-256", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", "3737373770717273373737", 36, "0123456789abcdefghi", "xs8a0azh2avyalyzuwd"},
}

func numerals(t *testing.T, s string) []uint16 {
	t.Helper()
	x := make([]uint16, len(s))
	for i := range s {
		d := strings.IndexByte(base36, s[i])
		if d < 0 {
			t.Fatalf("numeral %q in %q", s[i], s)
		}
		x[i] = uint16(d)
	}
	return x
}

func text(x []uint16) string {
	var b strings.Builder
	for _, d := range x {
		b.WriteByte(base36[d])
	}
	return b.String()
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNISTSamples holds both the Cipher and the step-by-step reference
// below to NIST's published samples, both ways.
func TestNISTSamples(t *testing.T) {
	for _, s := range nistSamples {
		t.Run(s.name, func(t *testing.T) {
			key, tweak := unhex(t, s.key), unhex(t, s.tweak)
			pt, ct := numerals(t, s.pt), numerals(t, s.ct)
			c, err := New(key, s.radix, len(pt), tweak)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Encrypt(pt)
			if err != nil {
				t.Fatal(err)
			}
			if text(got) != s.ct {
				t.Errorf("Encrypt(%s) = %s, want %s", s.pt, text(got), s.ct)
			}
			back, err := c.Decrypt(ct)
			if err != nil {
				t.Fatal(err)
			}
			if text(back) != s.pt {
				t.Errorf("Decrypt(%s) = %s, want %s", s.ct, text(back), s.pt)
			}
			if ref := reference(key, s.radix, tweak, pt, false); text(ref) != s.ct {
				t.Errorf("reference encrypt = %s, want %s", text(ref), s.ct)
			}
			if ref := reference(key, s.radix, tweak, ct, true); text(ref) != s.pt {
				t.Errorf("reference decrypt = %s, want %s", text(ref), s.pt)
			}
		})
	}
}

// TestMatchesReference compares the Cipher, which keeps the halves as
// 64-bit integers and precomputes the MAC of P and the tweak, with the
// standard's algorithm written out in big integers, on random strings for
// radixes from 2 to 2^16 (powers of two, whose reduction is a mask, and
// others), lengths from the shortest to the longest each allows, and
// tweaks that put Q in one, two and three blocks and b from 1 to 8 bytes.
func TestMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	key := unhex(t, "000102030405060708090a0b0c0d0e0f1011121314151617")
	radixes := []int{2, 3, 8, 10, 16, 26, 32, 36, 62, 64, 100, 255, 256, 1000, 4096, 65535, 65536}
	tweaks := []int{0, 1, 7, 10, 11, 16, 17, 33}
	for _, radix := range radixes {
		lengths := allowedLengths(radix)
		if len(lengths) == 0 {
			t.Fatalf("radix %d: no length allowed", radix)
		}
		for _, n := range lengths {
			for _, tl := range tweaks {
				tweak := make([]byte, tl)
				for i := range tweak {
					tweak[i] = byte(rng.Uint32())
				}
				c, err := New(key, radix, n, tweak)
				if err != nil {
					t.Fatalf("New(radix %d, n %d): %v", radix, n, err)
				}
				x := make([]uint16, n)
				for i := range x {
					x[i] = uint16(rng.IntN(radix))
				}
				got, err := c.Encrypt(x)
				if err != nil {
					t.Fatal(err)
				}
				want := reference(key, radix, tweak, x, false)
				if !equal(got, want) {
					t.Fatalf("radix %d, n %d, tweak %d bytes: Encrypt = %v, reference %v", radix, n, tl, got, want)
				}
				back, err := c.Decrypt(got)
				if err != nil {
					t.Fatal(err)
				}
				if !equal(back, x) {
					t.Fatalf("radix %d, n %d: Decrypt(Encrypt(x)) = %v, want %v", radix, n, back, x)
				}
			}
		}
	}
}

// allowedLengths lists the lengths New accepts for radix: from the first
// with a million strings to the last whose half fits in 64 bits, each.
func allowedLengths(radix int) []int {
	var ns []int
	for n := 2; n <= 128; n++ {
		r := big.NewInt(int64(radix))
		domain := new(big.Int).Exp(r, big.NewInt(int64(n)), nil)
		half := new(big.Int).Exp(r, big.NewInt(int64(n-n/2)), nil)
		if domain.Cmp(big.NewInt(minDomain)) >= 0 && half.BitLen() <= 64 {
			ns = append(ns, n)
		}
	}
	return ns
}

func equal(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNewRefuses: what the standard refuses, and what does not fit this
// implementation's 64-bit halves, each with ErrParams and a message that
// does not hold the key.
func TestNewRefuses(t *testing.T) {
	key := unhex(t, "2B7E151628AED2A6ABF7158809CF4F3C")
	for _, tc := range []struct {
		name     string
		key      []byte
		radix, n int
		want     string
	}{
		{"radix 1", key, 1, 40, "radix 1"},
		{"radix 2^16+1", key, 1<<16 + 1, 4, "radix 65537"},
		{"one numeral", key, 1 << 16, 1, "length 1"},
		{"radix 10, 5 numerals: 10^5 strings", key, 10, 5, "100000 strings"},
		{"radix 2, 19 numerals: 2^19 strings", key, 2, 19, "524288 strings"},
		{"radix 10, 40 numerals: 10^20 halves", key, 10, 40, "20 numerals"},
		{"radix 2, 127 numerals: 2^64 halves", key, 2, 127, "64 numerals"},
		{"radix 2^16, 7 numerals: 2^64 halves", key, 1 << 16, 7, "4 numerals"},
		{"15-byte key", key[:15], 10, 10, "key size 15"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.key, tc.radix, tc.n, nil)
			if !errors.Is(err, ErrParams) {
				t.Fatalf("err = %v, want ErrParams", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to name %q", err, tc.want)
			}
			if strings.Contains(strings.ToLower(err.Error()), "2b7e15") || bytes.Contains([]byte(err.Error()), tc.key) {
				t.Errorf("err = %q holds the key", err)
			}
		})
	}
	// The edges that are allowed.
	for _, p := range [][2]int{{2, 20}, {10, 6}, {2, 126}, {1 << 16, 6}, {10, 38}} {
		if _, err := New(key, p[0], p[1], nil); err != nil {
			t.Errorf("New(radix %d, n %d): %v", p[0], p[1], err)
		}
	}
}

func TestBadInput(t *testing.T) {
	c, err := New(unhex(t, "2B7E151628AED2A6ABF7158809CF4F3C"), 10, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string][]uint16{
		"short":      make([]uint16, 9),
		"long":       make([]uint16, 11),
		"numeral 10": {0, 1, 2, 3, 4, 5, 6, 7, 8, 10},
	} {
		if _, err := c.Encrypt(x); !errors.Is(err, ErrParams) {
			t.Errorf("Encrypt(%s) err = %v, want ErrParams", name, err)
		}
		if _, err := c.Decrypt(x); !errors.Is(err, ErrParams) {
			t.Errorf("Decrypt(%s) err = %v, want ErrParams", name, err)
		}
	}
	modA, modB := c.Halves()
	if modA != 100000 || modB != 100000 {
		t.Errorf("Halves() = %d, %d, want 100000, 100000", modA, modB)
	}
	for _, h := range [][2]uint64{{modA, 0}, {0, modB}} {
		if _, _, err := c.EncryptNum(h[0], h[1]); !errors.Is(err, ErrParams) {
			t.Errorf("EncryptNum(%d, %d) err = %v, want ErrParams", h[0], h[1], err)
		}
		if _, _, err := c.DecryptNum(h[0], h[1]); !errors.Is(err, ErrParams) {
			t.Errorf("DecryptNum(%d, %d) err = %v, want ErrParams", h[0], h[1], err)
		}
	}
}

// reference is FF1 as SP 800-38G Rev. 1 writes it (Algorithm 7, and
// Algorithm 8 when decrypt), step by step in big integers with the PRF
// computed over all of P || Q and S extended block by block, for any
// length: the independent statement the Cipher is checked against.
func reference(key []byte, radix int, tweak []byte, x []uint16, decrypt bool) []uint16 {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	ciph := func(in []byte) []byte {
		out := make([]byte, aes.BlockSize)
		block.Encrypt(out, in)
		return out
	}
	prf := func(in []byte) []byte { // CBC-MAC with a zero IV
		y := make([]byte, aes.BlockSize)
		for j := 0; j < len(in); j += aes.BlockSize {
			for k := range y {
				y[k] ^= in[j+k]
			}
			y = ciph(y)
		}
		return y
	}
	r := big.NewInt(int64(radix))
	num := func(s []uint16) *big.Int { // NUM_radix
		v := new(big.Int)
		for _, d := range s {
			v.Mul(v, r).Add(v, big.NewInt(int64(d)))
		}
		return v
	}
	str := func(m int, v *big.Int) []uint16 { // STR^m_radix
		out := make([]uint16, m)
		v = new(big.Int).Set(v)
		d := new(big.Int)
		for i := m - 1; i >= 0; i-- {
			v.DivMod(v, r, d)
			out[i] = uint16(d.Int64())
		}
		return out
	}
	bytesOf := func(v *big.Int, s int) []byte { // [v]^s
		return v.FillBytes(make([]byte, s))
	}

	n, t := len(x), len(tweak)
	u := n / 2                                                               // 1
	v := n - u                                                               //
	A, B := append([]uint16(nil), x[:u]...), append([]uint16(nil), x[u:]...) // 2
	rv := new(big.Int).Exp(r, big.NewInt(int64(v)), nil)
	bBytes := (new(big.Int).Sub(rv, big.NewInt(1)).BitLen() + 7) / 8 // 3
	d := 4*((bBytes+3)/4) + 4                                        // 4
	P := []byte{1, 2, 1}                                             // 5
	P = append(P, bytesOf(big.NewInt(int64(radix)), 3)...)
	P = append(P, 10, byte(u%256))
	P = append(P, bytesOf(big.NewInt(int64(n)), 4)...)
	P = append(P, bytesOf(big.NewInt(int64(t)), 4)...)

	step := func(i int, half []uint16) *big.Int { // 6 i-iv
		pad := ((-t-bBytes-1)%16 + 16) % 16
		Q := append(append([]byte(nil), tweak...), make([]byte, pad)...)
		Q = append(Q, byte(i))
		Q = append(Q, bytesOf(num(half), bBytes)...)
		R := prf(append(append([]byte(nil), P...), Q...))
		S := append([]byte(nil), R...)
		for j := 1; len(S) < d; j++ {
			xj := bytesOf(big.NewInt(int64(j)), aes.BlockSize)
			for k := range xj {
				xj[k] ^= R[k]
			}
			S = append(S, ciph(xj)...)
		}
		return new(big.Int).SetBytes(S[:d])
	}
	mOf := func(i int) int {
		if i%2 == 0 {
			return u
		}
		return v
	}
	if !decrypt {
		for i := 0; i < 10; i++ {
			y := step(i, B)
			m := mOf(i)
			c := new(big.Int).Add(num(A), y)
			c.Mod(c, new(big.Int).Exp(r, big.NewInt(int64(m)), nil))
			A, B = B, str(m, c)
		}
	} else {
		for i := 9; i >= 0; i-- {
			y := step(i, A)
			m := mOf(i)
			c := new(big.Int).Sub(num(B), y)
			c.Mod(c, new(big.Int).Exp(r, big.NewInt(int64(m)), nil)) // Mod is Euclidean: never negative
			A, B = str(m, c), A
		}
	}
	return append(A, B...) // 7
}
