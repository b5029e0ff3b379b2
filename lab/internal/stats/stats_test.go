package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMedian(t *testing.T) {
	assert.True(t, math.IsNaN(Median[float64](nil)), "no value is a missing figure, not 0")
	assert.Equal(t, 2.0, Median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, Median([]float64{4, 1, 3, 2}))
	assert.Equal(t, 5.0, Median([]int{5, 5, 6, 4, 5}))
	assert.Equal(t, 2.5, Median([]int64{3, 2}), "no integer truncation")
	in := []int64{9, 1, 5}
	lo, med, hi := Spread(in)
	assert.Equal(t, [3]float64{1, 5, 9}, [3]float64{lo, med, hi})
	assert.Equal(t, []int64{9, 1, 5}, in, "the input is not sorted in place")
	lo, _, _ = Spread[int64](nil)
	assert.True(t, math.IsNaN(lo))
}

func TestRangeConfidence(t *testing.T) {
	for n, want := range map[int]float64{0: 0, 1: 0, 2: 0.5, 3: 0.75, 5: 0.9375, 6: 0.96875} {
		assert.Equal(t, want, RangeConfidence(n), "n=%d", n)
	}
}
