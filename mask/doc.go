// Package mask gives an ID a public form that hides what a Snowflake ID
// tells whoever reads it, and reads the form back under a secret key.
//
// An ID in the clear discloses its creation time to the tick, the node that
// minted it and, from two IDs, how many were minted in between: a
// competitor who places an order a week reads the business's growth off
// the IDs (the German tank problem). The public form is a keyed
// pseudo-random permutation of the ID space instead: without the key, the
// strings of consecutive IDs look like independent random strings, so they
// carry neither order, nor time, nor rate, nor count, nor node. With the
// key, the string turns back into the ID, so nothing needs storing beside
// the row.
//
// # Construction
//
// The permutation is FF1, the format-preserving cipher of NIST SP 800-38G
// over AES (crypto/aes), on 16 numerals of radix 32: a domain of 2^80
// strings, far above the million SP 800-38G Rev. 1 requires since attacks
// on small domains. The 80 bits hold the 63 bits of the ID below 17 check bits that
// must decipher to zero. FF1 is implemented in this module from the
// standard's algorithm and tested against NIST's published samples.
//
// The string is those 16 numerals in Crockford's base32 alphabet, lower
// case (0-9 and a-z without i, l, o and u: no look-alikes, safe in a URL
// path or query without escaping), then one more character of the same
// alphabet: the version of the key that made it. The version is also
// FF1's tweak (one byte), so the block is bound to the character that
// names its key. Every string is Len (17) characters. Decode reads exactly what Encode writes: upper case or any
// other spelling is refused, so one ID has one public form (a cache key, a
// link or a log search never sees two).
//
// # The check, and what it is worth
//
// A string that was changed, made up, or made under another key deciphers
// to an 80-bit value that is, to anyone without the key, uniform over the
// 2^80-1 others; it passes only when its top 17 bits are zero. So a
// tampered or random string is refused with snowlab.ErrInvalidID except
// with probability 2^-17 (about 7.6e-6, one in 131,072), and a string
// decoded with the wrong key of the right version likewise. A string that
// passes by chance still names a random ID among 2^63, which exists only
// if that ID was issued: an attacker guessing strings finds a real object
// with probability (IDs issued)/2^80 per try, about 8e-16 for a billion
// rows. The check is there to refuse garbage and a wrong key cheaply, not
// to authenticate; a caller that needs a forgery bound stronger than 2^-17
// on a specific string should keep a MAC beside it.
//
// # Keys and rotation
//
// A Keyring holds up to 32 keys, each with a version 0..31 (MaxVersion):
// it encodes with its newest key and decodes a string with the key its
// last character names, so strings made under an older key keep working
// for as long as that key stays in the ring. Rotating changes every ID's
// public form (a permutation under a new key), so drop an old key only
// when the links it made may break. The version character says which key
// made a string, never anything about the ID. Secrets are AES keys of 16,
// 24 or 32 random bytes; a Keyring keeps only the expanded AES key and
// never prints it. The package takes a secret as bytes; how it is stored is
// the caller's. The snowid command (snowid mask and unmask) reads a key
// file or $SNOWID_MASK_KEY as 32, 48 or 64 hex digits or exactly 16, 24 or
// 32 raw bytes, and refuses content that is mostly hex digits but no hex
// key, rather than take a mistyped hex key as raw bytes nobody holds.
//
// The form is deterministic: one ID under one key always gives the same
// string, as an identifier must, so equal strings show equal IDs.
//
// Encode and Decode allocate nothing beyond the returned string
// (AppendEncode and Decode allocate nothing at all) and cost 10 AES block
// encryptions. go test -bench . -benchtime 200ms ./mask/ (AES-256, 2
// cores, 1-minute load 0.7) measured Encode at 408-415 ns and one
// allocation (the string), AppendEncode at 384-386 ns and none, Decode at
// 336-340 ns and none; with both cores at work (the Parallel benchmarks)
// 208-213 ns per encoded ID and 168-173 ns per decoded one.
//
// What it hides is tested on the strings of 40,960 consecutive IDs (4,096
// a tick, or one a tick; stats_test.go, bounds at about 1e-9 for an ideal
// permutation): they are in order for 50.08% and 49.93% of adjacent pairs,
// share leading characters no more than chance, and step by 40,959
// distinct amounts. Of 198,400 one-character changes 3 passed the check,
// of 20,000 wrong-key decodes none.
package mask
