package ab

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// bruteCounts counts W+ over all 2^n sign patterns, the definition the
// recurrence must agree with.
func bruteCounts(n int) []float64 {
	c := make([]float64, n*(n+1)/2+1)
	for mask := 0; mask < 1<<n; mask++ {
		w := 0
		for i := range n {
			if mask>>i&1 == 1 {
				w += i + 1
			}
		}
		c[w]++
	}
	return c
}

func TestSignedRankCounts(t *testing.T) {
	for n := range 13 {
		assert.Equal(t, bruteCounts(n), signedRankCounts(n), "n=%d", n)
	}
	assert.Nil(t, signedRankCounts(maxExact+1))
	// Tables of the signed-rank test: n=10's interval is the 9th smallest
	// to the 9th largest Walsh average (P(W+ <= 8) = 25/1024 <= 0.025).
	assert.Equal(t, 9, criticalK(signedRankCounts(10), 0.05))
	assert.Equal(t, 0, criticalK(signedRankCounts(5), 0.05), "5 pairs give no 95% interval")
}

func TestSignedRank(t *testing.T) {
	// Ranks 1..10 with the smallest three negative: W+ = 55 - 6 = 49,
	// the mirror of W+ = 6 (below the table's 8): p = 2 * 14/1024.
	d := []float64{-0.01, -0.02, -0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10}
	p, est, lo, hi := signedRank(d, 0.05)
	assert.InDelta(t, 2*14.0/1024, p, 1e-12)
	assert.InDelta(t, 0.045, est, 1e-12, "the median of the Walsh averages")
	assert.Less(t, lo, est)
	assert.Greater(t, hi, est)
	assert.Greater(t, lo, 0.0, "the interval leaves out 0 where p < 0.05")
	// W+ = 8 of 10: p = 2 * 25/1024, as the tables say (just significant).
	d = []float64{0.01, -0.02, -0.03, -0.04, -0.05, -0.06, 0.07, -0.08, -0.09, -0.10}
	p, _, _, _ = signedRank(d, 0.05)
	assert.InDelta(t, 2*25.0/1024, p, 1e-12)
	// All zeros: no evidence at all.
	p, est, lo, hi = signedRank(make([]float64, 8), 0.05)
	assert.Equal(t, 1.0, p)
	assert.Equal(t, 0.0, est)
	assert.Equal(t, [2]float64{0, 0}, [2]float64{lo, hi})
	// Ties: the midranks' own exact distribution; all positive is still
	// the one pattern in 2^10 at that end, p = 2/1024, and a tie among
	// signs that differ is counted as both could fall.
	p, _, _, _ = signedRank([]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 0.05)
	assert.InDelta(t, 2.0/1024, p, 1e-12)
	p, _, _, _ = signedRank([]float64{-1, 1, 2, 3}, 0.05)
	// Doubled midranks 3, 3, 6, 8: W2+ = 17 of 20; patterns with a sum
	// of 17 or more: {3,6,8} twice, and all four: 3 of 16.
	assert.InDelta(t, 2*3.0/16, p, 1e-12)
	// Too few pairs for an interval.
	_, _, lo, hi = signedRank([]float64{1, 2, 3}, 0.05)
	assert.True(t, math.IsInf(lo, -1) && math.IsInf(hi, 1))
}

func TestHolm(t *testing.T) {
	got := holm([]float64{0.01, 0.04, math.NaN(), 0.03})
	want := []float64{0.03, 0.06, math.NaN(), 0.06}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12) {
			t.Errorf("holm[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestDecide: the rule, at both minimum effects, with Holm's correction
// over the rows and Bonferroni for a row held as one of a larger family.
func TestDecide(t *testing.T) {
	o, err := Options{}.WithDefaults()
	assert.NoError(t, err)
	row := func(g int, p, change, lo, hi Number) Row {
		return Row{Workload: Workload{"s", g}, Pairs: 20, P: p, Change: change, ChangeLo: lo, ChangeHi: hi}
	}
	for _, c := range []struct {
		what  string
		row   Row
		want  decision
		worse bool
	}{
		{"significant, 5% dearer at G=1", row(1, 0.001, 0.05, 0.04, 0.06), Different, true},
		{"significant, 5% cheaper at G=1", row(1, 0.001, -0.05, -0.06, -0.04), Different, false},
		{"significant but under 3%", row(1, 0.001, 0.02, 0.015, 0.025), Same, false},
		{"5% dearer above G=1: under the 10% minimum", row(2, 0.001, 0.05, 0.03, 0.07), Same, false},
		{"12% dearer above G=1", row(4, 0.001, 0.12, 0.08, 0.16), Different, true},
		{"not significant, wide", row(1, 0.2, 0.04, -0.01, 0.09), unknown, false},
		{"no pairs", Row{Workload: Workload{"s", 1}, P: Number(math.NaN())}, unknown, false},
	} {
		rows := []Row{c.row}
		decide(rows, o, 1)
		assert.Equal(t, c.want, rows[0].Decision, c.what)
		assert.Equal(t, c.worse, rows[0].Worse, c.what)
	}
	rows := []Row{row(1, 0.004, 0.05, 0.04, 0.06), row(1, 0.5, 0, -0.01, 0.01)}
	decide(rows, o, 2)
	assert.Equal(t, Different, rows[0].Decision, "0.004 x 2 = 0.008 after Holm")
	decide(rows[:1], o, 9)
	assert.InDelta(t, 0.036, float64(rows[0].PAdj), 1e-12, "held as one of 9 rows: Bonferroni")
	assert.NotEqual(t, Different, rows[0].Decision)
	_, err = Options{MinEffect: 1.5}.WithDefaults()
	assert.ErrorIs(t, err, ErrOptions)
}

func TestMinRounds(t *testing.T) {
	assert.Equal(t, 11, minRounds(9, 0.01), "2/2^11 x 9 = 0.0088")
	assert.Equal(t, 9, minRounds(9, 0.05))
	assert.Equal(t, 8, minRounds(1, 0.01))
}
