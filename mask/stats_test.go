package mask

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
)

// The statistical tests feed the strings of consecutive IDs, as a busy or
// a quiet generator mints them, to measures of order, shared prefixes and
// spacing, and hold each to the bound an ideal random permutation meets.
// The key and the IDs are fixed, so each test always passes or always
// fails; every bound is set so that an ideal permutation would exceed it
// with probability about 1e-9 or less (6 standard deviations of a normal
// count, or the chi-square tail named), so a failure shows a pattern, not
// bad luck. The same measures run on plain and on two naive encodings to
// show that each one can fail.

const statN = 40960 // IDs per input: 10 full ticks of 4,096

// u80 is an 80-bit value: the top 16 bits in hi.
type u80 struct{ hi, lo uint64 }

func (a u80) sub(b u80) u80 {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, borrow)
	return u80{hi & 0xffff, lo} // mod 2^80
}

// top5 returns bits 75-79.
func (a u80) top5() int { return int(a.hi >> 11 & 31) }

// consecutive returns n IDs of the default layout in the order a
// generator mints them: busy, every sequence number of tick after tick;
// or quiet, one ID per tick.
func consecutive(t *testing.T, busy bool, n int) []snowlab.ID {
	t.Helper()
	l := snowlab.DefaultLayout
	start := time.Date(2025, 1, 24, 19, 35, 58, 0, time.UTC)
	ids := make([]snowlab.ID, 0, n)
	for i := 0; len(ids) < n; i++ {
		tick, seq := i, 0
		if busy {
			tick, seq = i/(l.MaxSeq()+1), i%(l.MaxSeq()+1)
		}
		id, err := l.Compose(start.Add(time.Duration(tick)*l.Unit), 37, seq)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// patterns are the measures of a sequence of strings (each over the
// base32 alphabet, all of one length) and the values they denote.
type patterns struct {
	n             int
	ascents       int       // adjacent pairs in increasing order
	prefix1       int       // adjacent pairs sharing at least their first character
	prefix2       int       // ... their first two characters
	longestPrefix int       // the longest prefix an adjacent pair shares
	positionChi2  []float64 // chi-square of each position's characters against uniform
	distinctSteps int       // distinct differences (mod 2^80) of adjacent values
	stepChi2      float64   // chi-square of the steps' top 5 bits against uniform
}

func measure(strs []string, vals []u80) patterns {
	p := patterns{n: len(strs)}
	width := len(strs[0])
	counts := make([][radix]int, width)
	steps := map[u80]bool{}
	var stepTop [32]int
	for i, s := range strs {
		for j := 0; j < width; j++ {
			counts[j][decodeMap[s[j]]]++
		}
		if i == 0 {
			continue
		}
		prev := strs[i-1]
		if prev < s {
			p.ascents++
		}
		k := 0
		for k < width && prev[k] == s[k] {
			k++
		}
		if k >= 1 {
			p.prefix1++
		}
		if k >= 2 {
			p.prefix2++
		}
		p.longestPrefix = max(p.longestPrefix, k)
		d := vals[i].sub(vals[i-1])
		steps[d] = true
		stepTop[d.top5()]++
	}
	for j := range counts {
		p.positionChi2 = append(p.positionChi2, chi2(counts[j][:]))
	}
	p.distinctSteps = len(steps)
	p.stepChi2 = chi2(stepTop[:])
	return p
}

// chi2 is the chi-square statistic of counts against equal counts.
func chi2(counts []int) float64 {
	total := 0
	for _, c := range counts {
		total += c
	}
	want := float64(total) / float64(len(counts))
	x := 0.0
	for _, c := range counts {
		x += (float64(c) - want) * (float64(c) - want) / want
	}
	return x
}

// chi2Bound is the most a chi-square of 32 bins (31 degrees of freedom)
// may be: P(chi-square(31) > 100) = 3.5e-9.
const chi2Bound = 100

// failures returns, by kind (order, prefix, spacing), the bounds p
// exceeds.
func (p patterns) failures() map[string][]string {
	f := map[string][]string{}
	add := func(kind, format string, a ...any) { f[kind] = append(f[kind], fmt.Sprintf(format, a...)) }
	pairs := float64(p.n - 1)

	// Order: in a random permutation the ascents between n values have
	// mean (n-1)/2 and variance (n+1)/12.
	if dev, sd := math.Abs(float64(p.ascents)-pairs/2), math.Sqrt(float64(p.n+1)/12); dev > 6*sd {
		add("order", "%d of %.0f adjacent pairs in order (%.4f): %.1f standard deviations from half", p.ascents, pairs, float64(p.ascents)/pairs, dev/sd)
	}

	// Prefixes: two random strings share their first k characters with
	// probability 32^-k; the counts of pairs that do are binomial.
	for _, c := range []struct {
		k, count int
	}{{1, p.prefix1}, {2, p.prefix2}} {
		q := math.Pow(radix, -float64(c.k))
		mean, sd := pairs*q, math.Sqrt(pairs*q*(1-q))
		if math.Abs(float64(c.count)-mean) > 6*sd {
			add("prefix", "%d adjacent pairs share %d leading characters, chance gives %.1f ± %.1f", c.count, c.k, mean, sd)
		}
	}
	// Some pair sharing 7 characters: at most n·32^-7 = 1.2e-6.
	if p.longestPrefix >= 7 {
		add("prefix", "an adjacent pair shares %d leading characters", p.longestPrefix)
	}
	// Each position's characters over all the strings, not only adjacent
	// ones: a prefix common to many strings is a skewed position.
	for j, x := range p.positionChi2 {
		if x > chi2Bound {
			add("prefix", "position %d: chi-square %.0f against uniform (bound %d)", j, x, chi2Bound)
		}
	}

	// Spacing: the step from one value to the next, mod 2^80, is uniform
	// for a random permutation: n-1 of them repeat with probability at
	// most n^2/2^81 = 7e-16, and their top 5 bits are uniform.
	if p.distinctSteps != p.n-1 {
		add("spacing", "%d distinct steps between %d adjacent values", p.distinctSteps, p.n-1)
	}
	if p.stepChi2 > chi2Bound {
		add("spacing", "top 5 bits of the steps: chi-square %.0f against uniform (bound %d)", p.stepChi2, chi2Bound)
	}
	return f
}

func (p patterns) String() string {
	worst := 0.0
	for _, x := range p.positionChi2 {
		worst = max(worst, x)
	}
	pairs := float64(p.n - 1)
	return fmt.Sprintf("n %d: in order %.4f; sharing 1 leading character %d (chance %.0f), 2 %d (chance %.0f), longest %d; worst position chi-square %.1f; distinct steps %d; step chi-square %.1f",
		p.n, float64(p.ascents)/pairs, p.prefix1, pairs/32, p.prefix2, pairs/1024, p.longestPrefix, worst, p.distinctSteps, p.stepChi2)
}

// maskedPatterns measures the public forms of ids: their 16 block
// characters (the version character is the same in all of them) and the
// 80-bit values those denote.
func maskedPatterns(t *testing.T, k *Keyring, ids []snowlab.ID) patterns {
	t.Helper()
	strs := make([]string, len(ids))
	vals := make([]u80, len(ids))
	for i, id := range ids {
		s, err := k.Encode(id)
		if err != nil {
			t.Fatal(err)
		}
		strs[i] = s[:blockLen]
		var a, b uint64
		for j := 0; j < 8; j++ {
			a = a<<5 | uint64(decodeMap[s[j]])
			b = b<<5 | uint64(decodeMap[s[8+j]])
		}
		vals[i] = u80{a >> 24, a<<halfBits | b}
	}
	return measure(strs, vals)
}

// encodedPatterns measures a naive encoding: f's 64-bit value of each ID
// in 13 characters of the same alphabet.
func encodedPatterns(ids []snowlab.ID, f func(uint64) uint64) patterns {
	strs := make([]string, len(ids))
	vals := make([]u80, len(ids))
	for i, id := range ids {
		v := f(uint64(id))
		strs[i] = strings.ToLower(snowlab.ID(v >> 1).Base32()) // 63 bits: keep the order of v
		vals[i] = u80{0, v}
	}
	return measure(strs, vals)
}

func TestConsecutiveIDsLeaveNoPattern(t *testing.T) {
	k := mustRing(t, Key{0, secret32})
	for _, busy := range []bool{true, false} {
		name := map[bool]string{true: "busy: 4,096 IDs a tick", false: "quiet: one ID a tick"}[busy]
		t.Run(name, func(t *testing.T) {
			p := maskedPatterns(t, k, consecutive(t, busy, statN))
			t.Log(p)
			for kind, fs := range p.failures() {
				t.Errorf("%s: %s", kind, strings.Join(fs, "; "))
			}
		})
	}
}

// TestPatternMeasuresFail runs the measures on encodings that keep a
// pattern, to show each kind of measure catches one: the plain ID, a
// multiplication by an odd constant mod 2^64 (a fixed step), and an XOR
// with a constant (a shared prefix and few steps).
func TestPatternMeasuresFail(t *testing.T) {
	ids := consecutive(t, true, statN)
	for _, tc := range []struct {
		name string
		f    func(uint64) uint64
		want []string
	}{
		{"plain", func(v uint64) uint64 { return v << 1 }, []string{"order", "prefix", "spacing"}},
		{"multiply", func(v uint64) uint64 { return v * 0x9e3779b97f4a7c15 }, []string{"order", "spacing"}},
		{"xor", func(v uint64) uint64 { return v ^ 0x5bd1e995deadbeef }, []string{"order", "prefix", "spacing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := encodedPatterns(ids, tc.f)
			t.Log(p)
			got := p.failures()
			for _, kind := range tc.want {
				if len(got[kind]) == 0 {
					t.Errorf("the %s measures did not catch the %s encoding", kind, tc.name)
				}
			}
		})
	}
}
