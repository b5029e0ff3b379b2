package mask

import (
	"testing"

	"github.com/snowlab/snowlab"
)

// The benchmarks report the cost of one ID; the Parallel ones run on every
// P (GOMAXPROCS, -cpu), so their ns/op is the time per ID with all cores
// at work.

const benchID snowlab.ID = 141264821508263936

func BenchmarkEncode(b *testing.B) {
	k := mustRing(b, Key{0, secret32})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := k.Encode(benchID + snowlab.ID(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendEncode(b *testing.B) {
	k := mustRing(b, Key{0, secret32})
	buf := make([]byte, 0, Len)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		var err error
		if buf, err = k.AppendEncode(buf[:0], benchID+snowlab.ID(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	k := mustRing(b, Key{0, secret32})
	strs := benchStrings(b, k)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := k.Decode(strs[i%len(strs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeParallel(b *testing.B) {
	k := mustRing(b, Key{0, secret32})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			if _, err := k.Encode(benchID + snowlab.ID(i)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkDecodeParallel(b *testing.B) {
	k := mustRing(b, Key{0, secret32})
	strs := benchStrings(b, k)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			if _, err := k.Decode(strs[i%len(strs)]); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchStrings returns the public forms of 1,024 consecutive IDs.
func benchStrings(b *testing.B, k *Keyring) []string {
	b.Helper()
	strs := make([]string, 1024)
	for i := range strs {
		var err error
		if strs[i], err = k.Encode(benchID + snowlab.ID(i)); err != nil {
			b.Fatal(err)
		}
	}
	return strs
}
