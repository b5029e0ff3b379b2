package mask

import (
	"bytes"
	"fmt"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/mask/internal/ff1"
)

const (
	// Len is the length of every public form: 16 characters of the
	// enciphered block and one of the key version.
	Len = blockLen + 1
	// MaxVersion is the largest key version: one character of the alphabet.
	MaxVersion = len(alphabet) - 1

	// alphabet is Crockford's base32 in lower case; a numeral's value is
	// its index, so strings sort as their numerals do.
	alphabet  = "0123456789abcdefghjkmnpqrstvwxyz"
	radix     = 32 // len(alphabet); digitMask takes a numeral off a half
	digitMask = radix - 1
	blockLen  = 16 // numerals of the FF1 block: 80 bits
	halfBits  = 40 // bits of each half of the block (8 numerals of 5 bits)
	// idHiBits is how many of the ID's 63 bits lie in the first half: the
	// rest of it (17 bits) is the check.
	idHiBits  = 63 - halfBits
	checkBits = blockLen*5 - 63
	halfMask  = 1<<halfBits - 1
)

// noDigit marks a byte outside the alphabet in decodeMap.
const noDigit = 0xff

// decodeMap gives each byte's numeral, or noDigit. It is read-only after
// initialization.
var decodeMap = func() (m [256]byte) {
	for i := range m {
		m[i] = noDigit
	}
	for i := 0; i < len(alphabet); i++ {
		m[alphabet[i]] = byte(i)
	}
	return m
}()

// Key is one secret of a Keyring and the version that names it.
type Key struct {
	// Version is the key's name in the strings it makes (their last
	// character): 0 through MaxVersion.
	Version int
	// Secret is the AES key: 16, 24 or 32 random bytes (AES-128, -192 or
	// -256).
	Secret []byte
}

// String describes the key without its secret.
func (k Key) String() string {
	return fmt.Sprintf("mask.Key{Version: %d, Secret: %d bytes}", k.Version, len(k.Secret))
}

// GoString describes the key without its secret, for %#v.
func (k Key) GoString() string { return k.String() }

// Keyring turns IDs into their public forms with its newest key and reads
// back the forms of any key it holds. It is safe for concurrent use. The
// zero Keyring holds no key: make one with New or NewKeyring.
type Keyring struct {
	ciphers [MaxVersion + 1]*ff1.Cipher // by version; nil where none
	newest  int
}

// New returns a Keyring of one key, version 0.
func New(secret []byte) (*Keyring, error) { return NewKeyring(Key{Version: 0, Secret: secret}) }

// NewKeyring returns a Keyring that encodes with newest and decodes the
// strings of newest and of every older key. A version outside 0..MaxVersion
// or given twice, a secret of a length AES does not take, or one secret
// under two versions is snowlab.ErrInvalidConfig; the error names the
// version, never the secret. The Keyring keeps no reference to the
// secrets.
func NewKeyring(newest Key, older ...Key) (*Keyring, error) {
	k := &Keyring{newest: newest.Version}
	keys := append([]Key{newest}, older...)
	for i, key := range keys {
		if key.Version < 0 || key.Version > MaxVersion {
			return nil, fmt.Errorf("%w: mask key version %d outside 0..%d", snowlab.ErrInvalidConfig, key.Version, MaxVersion)
		}
		if k.ciphers[key.Version] != nil {
			return nil, fmt.Errorf("%w: mask key version %d given twice", snowlab.ErrInvalidConfig, key.Version)
		}
		switch len(key.Secret) {
		case 16, 24, 32:
		default:
			return nil, fmt.Errorf("%w: mask key version %d has a secret of %d bytes, want 16, 24 or 32", snowlab.ErrInvalidConfig, key.Version, len(key.Secret))
		}
		for _, prev := range keys[:i] {
			if bytes.Equal(prev.Secret, key.Secret) {
				return nil, fmt.Errorf("%w: mask key versions %d and %d have the same secret: a new version needs a new one", snowlab.ErrInvalidConfig, prev.Version, key.Version)
			}
		}
		// The version is FF1's tweak: the block is bound to the version
		// character that names its key.
		c, err := ff1.New(key.Secret, radix, blockLen, []byte{byte(key.Version)})
		if err != nil {
			// The radix and length are this package's constants; only
			// the key could be at fault, and its length passed above.
			return nil, fmt.Errorf("%w: mask key version %d: %v", snowlab.ErrInvalidConfig, key.Version, err)
		}
		k.ciphers[key.Version] = c
	}
	return k, nil
}

// Newest returns the version of the key Encode uses.
func (k *Keyring) Newest() int { return k.newest }

// Versions returns the versions of the keys k holds, in increasing order.
func (k *Keyring) Versions() []int {
	var vs []int
	for v, c := range k.ciphers {
		if c != nil {
			vs = append(vs, v)
		}
	}
	return vs
}

// String describes the keyring by its versions, never its keys.
func (k *Keyring) String() string {
	return fmt.Sprintf("mask.Keyring{Newest: %d, Versions: %v}", k.newest, k.Versions())
}

// GoString describes the keyring without its keys, for %#v.
func (k *Keyring) GoString() string { return k.String() }

// Encode returns the public form of id under the newest key: Len
// characters. A negative id is no ID: snowlab.ErrInvalidID.
func (k *Keyring) Encode(id snowlab.ID) (string, error) {
	var buf [Len]byte
	b, err := k.AppendEncode(buf[:0], id)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// AppendEncode appends the public form of id to dst, as Encode returns it.
func (k *Keyring) AppendEncode(dst []byte, id snowlab.ID) ([]byte, error) {
	if id < 0 {
		return dst, fmt.Errorf("%w: %d is negative", snowlab.ErrInvalidID, int64(id))
	}
	c := k.ciphers[k.newest]
	if c == nil {
		return dst, fmt.Errorf("%w: the mask.Keyring holds no key (make it with New or NewKeyring)", snowlab.ErrInvalidConfig)
	}
	hi, lo, err := c.EncryptNum(uint64(id)>>halfBits, uint64(id)&halfMask)
	if err != nil {
		// Unreachable: both halves are below 2^40 by construction.
		return dst, fmt.Errorf("%w: %v", snowlab.ErrInvalidID, err)
	}
	var s [Len]byte
	for i := 7; i >= 0; i-- {
		s[i] = alphabet[hi&digitMask]
		s[8+i] = alphabet[lo&digitMask]
		hi >>= 5
		lo >>= 5
	}
	s[blockLen] = alphabet[k.newest]
	return append(dst, s[:]...), nil
}

// Decode returns the ID whose public form s is. A string of another
// length, with a character Encode does not write, made by a key version k
// does not hold, changed, or made under another key is snowlab.ErrInvalidID
// (the last two except with probability 2^-17: see the package
// documentation). The error quotes s, never a key.
func (k *Keyring) Decode(s string) (snowlab.ID, error) {
	if len(s) != Len {
		return 0, fmt.Errorf("%w: %s has %d characters, want %d", snowlab.ErrInvalidID, quote(s), len(s), Len)
	}
	var hi, lo uint64
	for i := 0; i < 8; i++ {
		dh, dl := decodeMap[s[i]], decodeMap[s[8+i]]
		if dh == noDigit || dl == noDigit {
			return 0, badChar(s)
		}
		hi = hi<<5 | uint64(dh)
		lo = lo<<5 | uint64(dl)
	}
	v := decodeMap[s[blockLen]]
	if v == noDigit {
		return 0, badChar(s)
	}
	c := k.ciphers[v]
	if c == nil {
		return 0, fmt.Errorf("%w: %s was made by key version %d, which the keyring (versions %v) does not hold", snowlab.ErrInvalidID, quote(s), v, k.Versions())
	}
	hi, lo, err := c.DecryptNum(hi, lo)
	if err != nil {
		// Unreachable: 8 numerals of 5 bits are below 2^40.
		return 0, fmt.Errorf("%w: %s: %v", snowlab.ErrInvalidID, quote(s), err)
	}
	if hi>>idHiBits != 0 {
		return 0, fmt.Errorf("%w: %s fails its check under key version %d: changed, made up, or made under another key", snowlab.ErrInvalidID, quote(s), v)
	}
	return snowlab.ID(hi<<halfBits | lo), nil
}

func badChar(s string) error {
	i := 0
	for i < len(s) && decodeMap[s[i]] != noDigit {
		i++
	}
	return fmt.Errorf("%w: %s has %q at %d: want only %s (Crockford base32, lower case)", snowlab.ErrInvalidID, quote(s), s[i:i+1], i, alphabet)
}

// quote quotes s for an error, cut to a length a log line can hold.
func quote(s string) string {
	const most = 64
	if len(s) > most {
		return fmt.Sprintf("%q (%d bytes)", s[:most]+"...", len(s))
	}
	return fmt.Sprintf("%q", s)
}
