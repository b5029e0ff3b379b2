package ab

import (
	"cmp"
	"math"
	"slices"

	"github.com/snowlab/snowlab/lab/internal/stats"
)

// signedRank is the Wilcoxon signed-rank test of d (paired differences)
// against a distribution symmetric about 0, two-sided, and the
// Hodges-Lehmann estimate of d's centre (the median of the Walsh
// averages (d_i+d_j)/2, i <= j) with its distribution-free interval at
// 1-alpha (Hollander & Wolfe: the order statistics of the Walsh averages
// at the test's critical value). Under the null hypothesis of loadgen ab,
// two builds that do the same, the sign of each pair's difference is a
// coin toss, because the order of the two slices of a pair is drawn at
// random: the exact p is then a randomisation test's, whatever the
// noise's distribution. Zeros are dropped from the test (Wilcoxon's own
// rule; all zeros is p = 1), not from the estimate; ties in |d| take
// their mean rank, and the exact distribution is then that of the
// midranks (integers when doubled, so the same recurrence counts it);
// above maxExact pairs, the normal approximation with its tie
// correction. lo and hi are -Inf and +Inf where n is too small for any
// interval (5 pairs or fewer at alpha 0.05).
func signedRank(d []float64, alpha float64) (p, est, lo, hi float64) {
	n := len(d)
	if n == 0 {
		return math.NaN(), math.NaN(), math.Inf(-1), math.Inf(1)
	}
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := range d {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	slices.Sort(walsh)
	m, est := len(walsh), stats.Median(walsh)
	lo, hi = math.Inf(-1), math.Inf(1)
	if k := criticalK(signedRankCounts(n), alpha); k >= 1 {
		lo, hi = walsh[k-1], walsh[m-k]
	}
	nz := slices.DeleteFunc(slices.Clone(d), func(v float64) bool { return v == 0 })
	if len(nz) == 0 {
		return 1, est, lo, hi
	}
	twice, wplus2, ties := ranks(nz)
	counts := weightCounts(twice)
	if counts == nil {
		return normalP(len(twice), wplus2, ties), est, lo, hi
	}
	total, below, above := 0.0, 0.0, 0.0
	for u, c := range counts {
		total += c
		if u <= wplus2 {
			below += c
		}
		if u >= wplus2 {
			above += c
		}
	}
	return math.Min(1, 2*math.Min(below, above)/total), est, lo, hi
}

// ranks are twice the ranks of |d| (midranks for ties, so that twice
// each is a whole number), twice W+, the sum of the ranks of the
// positive d, and the ties' correction to W+'s variance, the sum over
// each group of t tied values of (t^3-t)/48; d has no zeros.
func ranks(d []float64) (twice []int, wplus2 int, ties float64) {
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(d[a]), math.Abs(d[b])) })
	twice = make([]int, len(d))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && math.Abs(d[idx[j+1]]) == math.Abs(d[idx[i]]) {
			j++
		}
		r2 := i + j + 2 // twice the mean of ranks i+1 .. j+1
		t := float64(j - i + 1)
		ties += (t*t*t - t) / 48
		for k := i; k <= j; k++ {
			twice[k] = r2
			if d[idx[k]] > 0 {
				wplus2 += r2
			}
		}
		i = j + 1
	}
	return twice, wplus2, ties
}

// weightCounts returns counts[w] = how many of the 2^n sign patterns give
// a sum w of the weights whose sign is +, by the recurrence
// c_k(w) = c_{k-1}(w) + c_{k-1}(w - weight_k); nil above maxExact
// weights. With the weights 1..n it is signedRankCounts.
func weightCounts(weights []int) []float64 {
	if len(weights) > maxExact {
		return nil
	}
	c := []float64{1}
	for _, wt := range weights {
		next := make([]float64, len(c)+wt)
		for w, v := range c {
			next[w] += v
			next[w+wt] += v
		}
		c = next
	}
	return c
}

// maxExact is the largest n whose exact distribution signedRankCounts
// tabulates: its counts stay well inside a float64 (2^400 orderings).
const maxExact = 400

// signedRankCounts returns counts[w] = how many of the 2^n sign patterns
// of the ranks 1..n give W+ = w; nil above maxExact.
func signedRankCounts(n int) []float64 {
	w := make([]int, n)
	for i := range w {
		w[i] = i + 1
	}
	return weightCounts(w)
}

// criticalK is the largest k with P(W+ < k) <= alpha/2: the interval
// from the k-th smallest Walsh average to the k-th largest then covers
// the centre with confidence at least 1-alpha. 0 where none does.
func criticalK(counts []float64, alpha float64) int {
	total := 0.0
	for _, c := range counts {
		total += c
	}
	k, below := 0, 0.0
	for u, c := range counts {
		if (below+c)/total > alpha/2 {
			break
		}
		below += c
		k = u + 1
	}
	return k
}

// normalP is the signed-rank test's two-sided p over n pairs by the
// normal approximation, from twice W+, with the variance corrected for
// ties (ranks').
func normalP(pairs, wplus2 int, ties float64) float64 {
	n := float64(pairs)
	mean := n * (n + 1) / 4
	variance := n*(n+1)*(2*n+1)/24 - ties
	if variance <= 0 {
		return 1
	}
	z := (math.Abs(float64(wplus2)/2-mean) - 0.5) / math.Sqrt(variance)
	return math.Min(1, math.Erfc(math.Max(z, 0)/math.Sqrt2))
}

// holm returns the Holm-adjusted p-values of ps (Holm 1979): sorted
// ascending, the i-th (from 0) of m is multiplied by m-i, running maxima
// kept so that the order holds, capped at 1. NaN stays NaN and does not
// count towards m.
func holm(ps []float64) []float64 {
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	out := slices.Clone(ps)
	m, run := len(idx), 0.0
	for r, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-r)*ps[i]))
		out[i] = run
	}
	return out
}
