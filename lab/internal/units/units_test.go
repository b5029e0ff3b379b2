package units

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNs(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{
		{0, "0"}, {0.5, "0.5ns"}, {19.8, "19.8ns"}, {243, "243ns"}, {999.4, "999ns"}, {999.7, "1µs"},
		{1_200, "1.2µs"}, {12_345, "12.3µs"}, {1.2e6, "1.2ms"}, {4.62e6, "4.62ms"}, {790e6, "790ms"},
		{4e9, "4s"}, {1234e9, "1234s"}, {-1.2e6, "-1.2ms"}, {math.NaN(), "—"}, {math.Inf(1), "—"},
	} {
		assert.Equal(t, c.want, Ns(c.ns), "Ns(%v)", c.ns)
	}
	assert.Equal(t, "+2.91ms", SignedNs(2.91e6))
	assert.Equal(t, "-310µs", SignedNs(-310e3))
	assert.Equal(t, "0", SignedNs(0))
	assert.Equal(t, "4.62", Ms(4.62e6))
	assert.Equal(t, "0.09", Ms(0.09e6))
	assert.Equal(t, "—", Ms(math.NaN()))
	for _, c := range []struct {
		ns   float64
		want string
	}{{500, "500ns"}, {2500, "2.5µs"}, {2e6, "2ms"}, {3.25e9, "3.25s"}} {
		assert.Equal(t, c.want, NsDigits(c.ns, 4))
	}
}

func TestRate(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0/s"}, {12.5, "12.5/s"}, {950, "950/s"}, {25_540, "25.5k/s"}, {999_999, "1.00M/s"},
		{4.096e6, "4.10M/s"}, {32.768e6, "32.8M/s"}, {222e6, "222M/s"}, {1.5e9, "1.50G/s"}, {-4e6, "-4.00M/s"},
	} {
		assert.Equal(t, c.want, Rate(c.v), "Rate(%v)", c.v)
	}
	for _, c := range []struct {
		v    float64
		sig  int
		want string
	}{
		{4.096e6, 4, "4.096M"}, {25_600, 4, "25.6k"}, {20e6, 3, "20M"}, {math.NaN(), 3, "—"},
		{12345678, 4, "12.35M"}, {999, 4, "999"}, {1.5e9, 4, "1.5G"},
	} {
		assert.Equal(t, c.want, SI(c.v, c.sig, true), "SI(%v, %d)", c.v, c.sig)
	}
}

func TestSigFig(t *testing.T) {
	for _, c := range []struct {
		v         float64
		sig       int
		fig, trim string
	}{
		{4.096, 3, "4.10", "4.1"}, {9.996, 3, "10.0", "10"}, {1234, 3, "1234", "1234"}, {0.0123, 3, "0.0123", "0.0123"},
		{100, 3, "100", "100"}, {0, 3, "0", "0"}, {0.5, 2, "0.50", "0.5"}, {-2.5, 3, "-2.50", "-2.5"},
	} {
		assert.Equal(t, c.fig, SigFig(c.v, c.sig), "SigFig(%v, %d)", c.v, c.sig)
		assert.Equal(t, c.trim, TrimSig(c.v, c.sig), "TrimSig(%v, %d)", c.v, c.sig)
	}
}

func TestCountBytesThousands(t *testing.T) {
	assert.Equal(t, "0.0123", Count(0.0123))
	assert.Equal(t, "2.5", Count(2.5))
	assert.Equal(t, "1234", Count(1234.4))
	assert.Equal(t, "0", Count(0))
	assert.Equal(t, "—", Count(math.NaN()))
	for n, want := range map[int64]string{0: "?", 64: "64 B", 1536: "1.5 KiB", 32 << 10: "32 KiB",
		512 << 10: "512 KiB", 32 << 20: "32 MiB", 3 << 30: "3 GiB", 1000: "1000 B", 1<<20 - 1: "1 MiB"} {
		assert.Equal(t, want, Bytes(n), "Bytes(%d)", n)
	}
	for in, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 20_000: "20,000",
		1_234_567: "1,234,567", -4096: "-4,096", -409: "-409", -100_000: "-100,000", -123: "-123", -123_456: "-123,456"} {
		assert.Equal(t, want, Thousands(in))
	}
}
