// Package ff1 is FF1, the format-preserving cipher of NIST SP 800-38G
// (Algorithms 7 and 8), over AES from the standard library.
//
// FF1 is a 10-round Feistel network on a numeral string of n digits in a
// radix: the string is split into halves A (the first u = floor(n/2) digits)
// and B (the other v = n-u), and each round adds to one half a pseudo-random
// number derived, by a CBC-MAC of AES, from the other half, the tweak and the
// round number. The result is a pseudo-random permutation of the radix^n
// numeral strings for each key and tweak.
//
// This implementation keeps each half as the integer it denotes (NUM_radix
// in the standard's terms), so it handles the strings whose longer half fits
// in 64 bits: radix^v < 2^64. That covers every sample NIST publishes for
// FF1 and, with no big integers, costs 10 AES block encryptions and no
// allocation per call: the MAC of the blocks that do not change between
// rounds (P, and the tweak's blocks of Q) is computed once by New.
package ff1

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync"
)

// The standard's limits: radix in [2, 2^16], and at least a million strings
// in the domain (SP 800-38G Rev. 1 raised that from 100).
const (
	MinRadix  = 2
	MaxRadix  = 1 << 16
	minDomain = 1_000_000
)

const rounds = 10

// ErrParams is a radix, length, key or numeral outside what FF1 (or this
// implementation) accepts.
var ErrParams = errors.New("ff1: invalid parameters")

// Cipher is FF1 under one AES key and one tweak, for numeral strings of one
// length in one radix. It is safe for concurrent use.
type Cipher struct {
	block      cipher.Block
	radix      uint64
	n, u       int
	b          int    // bytes of [NUM_radix(B)] in Q: ceil(ceil(v·log2(radix))/8)
	wideS      bool   // d = 12 (b > 4), so y is 96 bits; else d = 8
	modU, modV uint64 // radix^u and radix^v

	// mac is the CBC-MAC state after every block of P || Q that does not
	// change between rounds, XORed with the fixed bytes of Q's last block
	// (the tweak's tail and the zero padding): a round XORs in its number
	// and NUM_radix of a half and encrypts once to get R. As two big-endian
	// words: bytes 0-7 and 8-15.
	macHi, macLo uint64

	// scratch holds the 16-byte buffers given to block.Encrypt: a buffer
	// passed to an interface method escapes to the heap, and a pool keeps
	// that from costing an allocation per call.
	scratch sync.Pool
}

// New returns FF1 with the AES key (16, 24 or 32 bytes) and tweak for
// strings of n numerals in radix. It refuses what the standard refuses (a
// radix outside [2, 2^16], n < 2, fewer than a million strings) and strings
// whose longer half cannot be held in 64 bits (radix^ceil(n/2) >= 2^64).
// Its errors never hold the key.
func New(key []byte, radix, n int, tweak []byte) (*Cipher, error) {
	if radix < MinRadix || radix > MaxRadix {
		return nil, fmt.Errorf("%w: radix %d outside [%d, %d]", ErrParams, radix, MinRadix, MaxRadix)
	}
	if n < 2 {
		return nil, fmt.Errorf("%w: length %d, want at least 2 numerals", ErrParams, n)
	}
	u := n / 2
	v := n - u
	modV, ok := pow(uint64(radix), v)
	if !ok {
		return nil, fmt.Errorf("%w: radix %d with %d numerals: a half of %d numerals does not fit in 64 bits", ErrParams, radix, n, v)
	}
	modU, _ := pow(uint64(radix), u) // u <= v
	if hi, lo := bits.Mul64(modU, modV); hi == 0 && lo < minDomain {
		return nil, fmt.Errorf("%w: radix %d with %d numerals is %d strings, want at least %d", ErrParams, radix, n, lo, minDomain)
	}
	if uint64(len(tweak)) > 1<<32-1 {
		return nil, fmt.Errorf("%w: tweak of %d bytes, want under 2^32", ErrParams, len(tweak))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		// aes.KeySizeError says only the length.
		return nil, fmt.Errorf("%w: %v", ErrParams, err)
	}

	// ceil(v·log2(radix)) is the bit length of radix^v - 1: exact, with no
	// floating point (radix^v >= 2 here).
	b := (bits.Len64(modV-1) + 7) / 8
	c := &Cipher{
		block: block,
		radix: uint64(radix),
		n:     n, u: u,
		b:     b,
		wideS: b > 4,
		modU:  modU,
		modV:  modV,
	}
	c.scratch.New = func() any { return new([aes.BlockSize]byte) }

	// P = [1]^1 || [2]^1 || [1]^1 || [radix]^3 || [10]^1 || [u mod 256]^1 || [n]^4 || [t]^4
	var state [aes.BlockSize]byte
	state[0], state[1], state[2] = 1, 2, 1
	state[3], state[4], state[5] = byte(radix>>16), byte(radix>>8), byte(radix)
	state[6] = rounds
	state[7] = byte(u)
	binary.BigEndian.PutUint32(state[8:], uint32(n))
	binary.BigEndian.PutUint32(state[12:], uint32(len(tweak)))
	block.Encrypt(state[:], state[:])

	// Q = T || [0]^((-t-b-1) mod 16) || [i]^1 || [NUM_radix(B)]^b. Its
	// last 1+b bytes (at most 9) lie in its last block; every block before
	// that holds only the tweak and zeros.
	t := len(tweak)
	pad := (16 - (t+b+1)%16) % 16
	q := make([]byte, t+pad+1+b)
	copy(q, tweak)
	for len(q) > aes.BlockSize {
		xorInto(state[:], q[:aes.BlockSize])
		block.Encrypt(state[:], state[:])
		q = q[aes.BlockSize:]
	}
	xorInto(state[:], q) // the round number and NUM_radix(B) are still zero
	c.macHi = binary.BigEndian.Uint64(state[:8])
	c.macLo = binary.BigEndian.Uint64(state[8:])
	return c, nil
}

// xorInto XORs src into dst.
func xorInto(dst, src []byte) {
	for i := range src {
		dst[i] ^= src[i]
	}
}

// pow returns radix^e and whether it is below 2^64.
func pow(radix uint64, e int) (uint64, bool) {
	r := uint64(1)
	for range e {
		hi, lo := bits.Mul64(r, radix)
		if hi != 0 {
			return 0, false
		}
		r = lo
	}
	return r, true
}

// Halves returns radix^u and radix^v: a string's first half A is below the
// first, its second half B below the second.
func (c *Cipher) Halves() (modA, modB uint64) { return c.modU, c.modV }

// round returns y mod m for round i (step 6 ii-vi): y = NUM(S), S the
// first d bytes of R = PRF(P || Q) with [NUM_radix(half)]^b in Q, and m the
// round's radix^u or radix^v. d is at most 12 here (b <= 8), so S lies
// within R and no further block is needed.
func (c *Cipher) round(buf *[aes.BlockSize]byte, i int, half, m uint64) uint64 {
	hi, lo := c.macHi, c.macLo
	lo ^= half // half < radix^v <= 2^(8b): the last b bytes
	if c.b < 8 {
		lo ^= uint64(i) << (8 * c.b)
	} else {
		hi ^= uint64(i)
	}
	binary.BigEndian.PutUint64(buf[:8], hi)
	binary.BigEndian.PutUint64(buf[8:], lo)
	c.block.Encrypt(buf[:], buf[:])

	var yHi, yLo uint64
	if c.wideS {
		yHi = uint64(binary.BigEndian.Uint32(buf[:4]))
		yLo = binary.BigEndian.Uint64(buf[4:12])
	} else {
		yLo = binary.BigEndian.Uint64(buf[:8])
	}
	if m&(m-1) == 0 { // a power of two: radix 2, 4, 8, ...
		return yLo & (m - 1)
	}
	return bits.Rem64(yHi, yLo, m)
}

// modulus returns radix^m of round i: u for even rounds, v for odd.
func (c *Cipher) modulus(i int) uint64 {
	if i%2 == 1 {
		return c.modV
	}
	return c.modU
}

// EncryptNum enciphers the string whose halves denote a (below radix^u)
// and b (below radix^v), and returns the halves of the result.
func (c *Cipher) EncryptNum(a, b uint64) (uint64, uint64, error) {
	if a >= c.modU || b >= c.modV {
		return 0, 0, fmt.Errorf("%w: halves %d, %d outside %d, %d", ErrParams, a, b, c.modU, c.modV)
	}
	buf := c.scratch.Get().(*[aes.BlockSize]byte)
	for i := 0; i < rounds; i++ {
		m := c.modulus(i)
		y := c.round(buf, i, b, m)
		// (a + y) mod m, with a, y < m < 2^64.
		s, carry := bits.Add64(a, y, 0)
		if carry != 0 || s >= m {
			s -= m
		}
		a, b = b, s
	}
	c.scratch.Put(buf)
	return a, b, nil
}

// DecryptNum is the inverse of EncryptNum.
func (c *Cipher) DecryptNum(a, b uint64) (uint64, uint64, error) {
	if a >= c.modU || b >= c.modV {
		return 0, 0, fmt.Errorf("%w: halves %d, %d outside %d, %d", ErrParams, a, b, c.modU, c.modV)
	}
	buf := c.scratch.Get().(*[aes.BlockSize]byte)
	for i := rounds - 1; i >= 0; i-- {
		m := c.modulus(i)
		y := c.round(buf, i, a, m)
		// (b - y) mod m, with b, y < m.
		d := b - y
		if b < y {
			d += m
		}
		a, b = d, a
	}
	c.scratch.Put(buf)
	return a, b, nil
}

// Encrypt enciphers the numeral string x (each numeral below the radix,
// most significant first) and returns the result.
func (c *Cipher) Encrypt(x []uint16) ([]uint16, error) { return c.crypt(x, c.EncryptNum) }

// Decrypt deciphers the numeral string x.
func (c *Cipher) Decrypt(x []uint16) ([]uint16, error) { return c.crypt(x, c.DecryptNum) }

func (c *Cipher) crypt(x []uint16, f func(a, b uint64) (uint64, uint64, error)) ([]uint16, error) {
	if len(x) != c.n {
		return nil, fmt.Errorf("%w: %d numerals, want %d", ErrParams, len(x), c.n)
	}
	a, err := c.num(x[:c.u])
	if err != nil {
		return nil, err
	}
	b, err := c.num(x[c.u:])
	if err != nil {
		return nil, err
	}
	a, b, err = f(a, b)
	if err != nil {
		return nil, err
	}
	out := make([]uint16, c.n)
	c.str(out[:c.u], a)
	c.str(out[c.u:], b)
	return out, nil
}

// num is NUM_radix: the number the numerals denote, most significant
// first. Its callers' halves are below 2^64.
func (c *Cipher) num(x []uint16) (uint64, error) {
	var r uint64
	for i, d := range x {
		if uint64(d) >= c.radix {
			return 0, fmt.Errorf("%w: numeral %d at %d is not below radix %d", ErrParams, d, i, c.radix)
		}
		r = r*c.radix + uint64(d)
	}
	return r, nil
}

// str is STR^len(dst)_radix: x as len(dst) numerals, most significant
// first.
func (c *Cipher) str(dst []uint16, x uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = uint16(x % c.radix)
		x /= c.radix
	}
}
