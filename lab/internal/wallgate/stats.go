package wallgate

import (
	"math"
	"slices"
)

// uCDF returns counts[u] = how many of the C(n1+n2, n1) orderings of two
// samples of sizes n1 and n2 give the Mann-Whitney statistic U = u (no
// ties), by the recurrence f(n1, n2, u) = f(n1-1, n2, u-n2) + f(n1, n2-1, u).
func uCounts(n1, n2 int) []float64 {
	// prev[j][u]: counts for sizes (i-1, j); cur for (i, j).
	prev := make([][]float64, n2+1)
	for j := range prev {
		prev[j] = []float64{1} // i = 0: one ordering, U = 0
	}
	for i := 1; i <= n1; i++ {
		cur := make([][]float64, n2+1)
		cur[0] = []float64{1}
		for j := 1; j <= n2; j++ {
			c := make([]float64, i*j+1)
			for u := range c {
				if u-j >= 0 && u-j < len(prev[j]) {
					c[u] += prev[j][u-j]
				}
				if u < len(cur[j-1]) {
					c[u] += cur[j-1][u]
				}
			}
			cur[j] = c
		}
		prev = cur
	}
	return prev[n2]
}

// criticalK is the largest k such that P(U < k) <= alpha/2: the
// interval [D(k), D(n1*n2+1-k)] of the sorted pairwise differences then
// covers the shift with confidence at least 1-alpha (Bauer 1972). It is 0
// when the samples are too small for any such interval.
func criticalK(n1, n2 int, alpha float64) int {
	counts := uCounts(n1, n2)
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

// shift is the Hodges-Lehmann estimate of how far b lies above a (the
// median of every b_j - a_i) and its distribution-free interval at
// 1-alpha; lo and hi are -Inf and +Inf when the samples are too small.
func shift(a, b []float64, alpha float64) (est, lo, hi float64) {
	d := make([]float64, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			d = append(d, y-x)
		}
	}
	slices.Sort(d)
	n := len(d)
	if n%2 == 1 {
		est = d[n/2]
	} else {
		est = (d[n/2-1] + d[n/2]) / 2
	}
	k := criticalK(len(a), len(b), alpha)
	if k < 1 {
		return est, math.Inf(-1), math.Inf(1)
	}
	return est, d[k-1], d[n-k]
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
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(ps[a], ps[b]) })
	out := slices.Clone(ps)
	m, run := len(idx), 0.0
	for r, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-r)*ps[i]))
		out[i] = run
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
