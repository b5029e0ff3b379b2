package snowlab

import (
	"fmt"
	"math/bits"
)

// Shard places id on one of n shards (0 … n-1) by a hash of the whole ID,
// for hash partitioning: unlike the ID's order, the shard does not follow
// time, so the newest rows spread over every shard instead of piling onto
// the last one, and IDs of one node or one tick spread as evenly as any.
//
// The hash is splitmix64's finalizer (a bijective 64-bit mixer in which
// every input bit moves every output bit), and the index is the high word
// of hash × n, which spreads the 2^64 hashes over n shards without the
// bias of a modulo by a non-power of two. The mapping is part of the
// contract and never changes: rows placed by one version are found by
// every other. It is not PostgreSQL's PARTITION BY HASH, whose hash the
// server computes itself (that too does not follow time); Shard is for
// placement the application decides, such as which database or queue
// partition a row goes to.
//
// Shard panics if n < 1, as math/rand's IntN does: no shard can be chosen.
func Shard(id ID, n int) int {
	if n < 1 {
		panic(fmt.Sprintf("snowlab: Shard over %d shards, want at least 1", n))
	}
	hi, _ := bits.Mul64(mix64(uint64(id)), uint64(n))
	return int(hi)
}

// mix64 is the finalizer of splitmix64 (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014; the constants
// are Stafford's Mix13, as java.util.SplittableRandom uses).
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
