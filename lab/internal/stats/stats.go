package stats

import (
	"math"
	"slices"
)

// number is what the lab measures: counts, nanoseconds, rates.
type number interface{ ~int | ~int64 | ~float64 }

// Median is the median of v (the mean of the middle two for an even
// count), NaN for none: no value is a missing figure, never a zero one.
func Median[T number](v []T) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := make([]float64, len(v))
	for i, x := range v {
		s[i] = float64(x)
	}
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Spread is the minimum, median and maximum of v, NaN for none.
func Spread[T number](v []T) (lo, med, hi float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return float64(slices.Min(v)), Median(v), float64(slices.Max(v))
}

// RangeConfidence is the confidence with which the range (minimum to
// maximum) of n values drawn independently from one continuous
// distribution holds its median: the median is outside only when all n
// fall on one side of it, each with probability 2^-n, so 1 - 2^(1-n).
// Two values give 50%, five 93.75%, six 96.9%; fewer than two give 0 (a
// single value is no interval).
func RangeConfidence(n int) float64 {
	if n < 2 {
		return 0
	}
	return 1 - math.Ldexp(1, 1-n)
}
