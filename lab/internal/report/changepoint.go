package report

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// Defaults. Otava's window of 50 points, and segments of at least 3
// points either side of a split (2 points make a single outlier look like
// a level). Otava holds a split at p 0.001 over windows of 50 points; the
// published history is 13 runs, and there are only C(13,6) = 1,716 ways to
// split 13 runs 6/7, so a 10% step in 3% noise planted there reads
// p = 0.002 with 999 permutations (TestPlantedStep): 0.005 keeps it, and
// gives none in 20 seeded flat series with 15% noise (TestFlatNoise).
const (
	ChangePointP       = 0.005
	changePermutations = 999
	changeWindow       = 50
	changeMinSize      = 3
)

// changePoint is a change point: Index is the first point of the new level;
// Before and After are the means of the segments either side (within the
// window it was found in), P its permutation p-value.
type changePoint struct {
	Index         int
	Before, After float64
	P             float64
}

// findChanges finds the runs where a series of benchmark figures
// changed level: the e-divisive means test of Matteson and James ("A
// nonparametric approach for multiple change point analysis of
// multivariate data", JASA 109(505), 2014), as Apache Otava (MongoDB's
// Hunter, Fleming et al., ICPE 2023) runs it over performance history.
//
// For a segment of the series it takes the split τ (and end κ) that
// maximises
//
//	Q(τ, κ) = m·n/(m+n) · (2/(m·n) Σ|x−y| − 1/C(m,2) Σ|x−x'| − 1/C(n,2) Σ|y−y'|)
//
// (the energy distance between the m points before τ and the n from τ to κ,
// with exponent 1), and holds it significant when no more than a
// fraction ChangePointP of random permutations of the segment reach as high a
// maximum (a permutation test: distribution-free, so it needs no model
// of the noise). A significant split cuts the segment in two and the
// search goes on in the parts, the most significant split first, until
// none is left. Long series are searched in windows of changeWindow points,
// half-overlapping, as Otava does, so that an old level does not hide a
// new step.
//
// findChanges returns the change points of xs in index order, its
// permutations seeded by seed, so that a series gives the same answer
// every time. NaN points are not allowed: the caller drops them.
func findChanges(xs []float64, seed uint64) []changePoint {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	found := map[int]changePoint{}
	for lo := 0; ; lo += changeWindow / 2 {
		hi := min(lo+changeWindow, len(xs))
		for _, c := range searchChanges(xs[lo:hi], rng) {
			c.Index += lo
			if _, dup := found[c.Index]; !dup {
				found[c.Index] = c
			}
		}
		if hi == len(xs) {
			break
		}
	}
	return slices.SortedFunc(maps.Values(found), func(a, b changePoint) int { return a.Index - b.Index })
}

// changeSegment is a half-open span of the series still to be searched.
type changeSegment struct{ lo, hi int }

// searchChanges is the hierarchical e-divisive search of one window: split the
// segment whose best split is the most significant, while one is.
func searchChanges(xs []float64, rng *rand.Rand) []changePoint {
	segs := []changeSegment{{0, len(xs)}}
	var out []changePoint
	for {
		best, bestSeg, bestP := -1, -1, math.Inf(1)
		for i, s := range segs {
			tau, q := bestSplit(xs[s.lo:s.hi], changeMinSize)
			if tau < 0 {
				continue
			}
			if p := permutationP(xs[s.lo:s.hi], q, rng); p < bestP {
				best, bestSeg, bestP = s.lo+tau, i, p
			}
		}
		if best < 0 || bestP > ChangePointP {
			return out
		}
		s := segs[bestSeg]
		out = append(out, changePoint{Index: best, Before: meanOf(xs[s.lo:best]), After: meanOf(xs[best:s.hi]), P: bestP})
		segs = slices.Replace(segs, bestSeg, bestSeg+1, changeSegment{s.lo, best}, changeSegment{best, s.hi})
	}
}

// permutationP is the share of random permutations of xs (and the
// observed order itself) whose best split reaches q.
func permutationP(xs []float64, q float64, rng *rand.Rand) float64 {
	perm := slices.Clone(xs)
	reach := 1 // the observed order
	for range changePermutations {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if _, pq := bestSplit(perm, changeMinSize); pq >= q {
			reach++
		}
	}
	return float64(reach) / float64(changePermutations+1)
}

// bestSplit is the τ in [minSize, len-minSize] maximising Q(τ, κ) over
// the ends κ of the second part (Matteson and James's Q̂(τ, κ): the
// points from τ to κ against those before τ, so that a level that
// returns, a bump in the middle, is found too), and that Q; τ is -1
// where the segment is too short to split.
func bestSplit(xs []float64, minSize int) (int, float64) {
	n := len(xs)
	if n < 2*minSize {
		return -1, 0
	}
	// within[i][j] sums |x-x'| over pairs in [i, j): built from prefix
	// sums per row in O(n^2), so a split's Q costs O(1).
	d := make([][]float64, n+1) // d[i][j] = Σ_{i<=a<b<j} |x_a - x_b|
	for i := range d {
		d[i] = make([]float64, n+1)
	}
	for i := n - 1; i >= 0; i-- {
		// pairs in [i, j) are those in [i+1, j) and (i, b) for b in (i, j)
		row := 0.0
		for j := i + 1; j <= n; j++ {
			if j > i+1 {
				row += math.Abs(xs[i] - xs[j-1])
			}
			d[i][j] = d[i+1][j] + row
		}
	}
	best, bestQ := -1, math.Inf(-1)
	for tau := minSize; tau <= n-minSize; tau++ {
		for kappa := tau + minSize; kappa <= n; kappa++ {
			m, k := float64(tau), float64(kappa-tau)
			between := d[0][kappa] - d[0][tau] - d[tau][kappa] // pairs across the split
			e := 2*between/(m*k) - d[0][tau]/(m*(m-1)/2) - d[tau][kappa]/(k*(k-1)/2)
			if q := m * k / (m + k) * e; q > bestQ {
				best, bestQ = tau, q
			}
		}
	}
	return best, bestQ
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
