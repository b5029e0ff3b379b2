package alternatives

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// issues builds a hand-out log: IDs in the order they were handed out,
// at times 0, 10, 20, ... ns unless at is given.
func issues(ids []int64, at ...int64) []issuedID {
	out := make([]issuedID, len(ids))
	for i, id := range ids {
		t := int64(10 * i)
		if at != nil {
			t = at[i]
		}
		out[i] = issuedID{ID: id, At: t}
	}
	return out
}

func TestMeasureDisorder(t *testing.T) {
	for _, tc := range []struct {
		name string
		log  []issuedID
		want disorder
	}{
		{"none", nil, disorder{}},
		{"one", issues([]int64{7}), disorder{IDs: 1}},
		{"in order", issues([]int64{1, 2, 3, 4}),
			disorder{IDs: 4, AdjacentPairs: 3}},
		{"gaps and strides in order are not disorder", issues([]int64{1, 5, 9, 40}),
			disorder{IDs: 4, AdjacentPairs: 3}},
		// handed out 2 at 0, 1 at 10: sorted 1 (10), 2 (0): 1 sorts before 2,
		// which was handed out 10 ns earlier.
		{"one swap", issues([]int64{2, 1}),
			disorder{IDs: 2, AdjacentPairs: 1, AdjacentInverted: 1, AdjacentShare: 1, InvertedPairs: 1, PairShare: 1, Window: 10}},
		// reversed: every pair inverted; the window is first to last.
		{"reversed", issues([]int64{4, 3, 2, 1}),
			disorder{IDs: 4, AdjacentPairs: 3, AdjacentInverted: 3, AdjacentShare: 1, InvertedPairs: 6, PairShare: 1, Window: 30}},
		// two blocks of a segment allocator: node A holds [1,3], node B
		// [4,6]; B hands out 4 and 5 first, A hands out 1..3 later, then B 6.
		// Sorted: 1(20) 2(30) 3(40) 4(0) 5(10) 6(50): one adjacent inversion
		// (3→4) of 5; pairs (1,4) (1,5) (2,4) (2,5) (3,4) (3,5): 6 of 15; the
		// window: 3 at 40 sorts before 4 at 0.
		{"two blocks", issues([]int64{4, 5, 1, 2, 3, 6}),
			disorder{IDs: 6, AdjacentPairs: 5, AdjacentInverted: 1, AdjacentShare: 0.2, InvertedPairs: 6, PairShare: 0.4, Window: 40}},
		// a stride: master 1 issues 1, 3, 5 fast, master 2 issues 2 late:
		// 3 and 5 (at 10, 20) sort after 2 (at 1000): not inverted; 2 sorts
		// before 3 and 5, handed out earlier: inverted twice, window 990.
		{"stride, one slow master", issues([]int64{1, 3, 5, 2}, 0, 10, 20, 1000),
			disorder{IDs: 4, AdjacentPairs: 3, AdjacentInverted: 1, AdjacentShare: 1.0 / 3, InvertedPairs: 2, PairShare: 2.0 / 6, Window: 990}},
		// equal times are no inversion in either direction.
		{"same instant", issues([]int64{2, 1, 3}, 5, 5, 5),
			disorder{IDs: 3, AdjacentPairs: 2}},
		{"duplicate", issues([]int64{1, 2, 2, 3}),
			disorder{IDs: 4, Duplicates: 1, AdjacentPairs: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := measureDisorder(tc.log)
			assert.InDelta(t, tc.want.AdjacentShare, got.AdjacentShare, 1e-12)
			assert.InDelta(t, tc.want.PairShare, got.PairShare, 1e-12)
			got.AdjacentShare, got.PairShare = tc.want.AdjacentShare, tc.want.PairShare
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestInversionsAgainstPairs holds the merge-sort inversion count and the
// one-pass window to the quadratic definitions on random logs.
func TestInversionsAgainstPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		n := 1 + r.IntN(200)
		log := make([]issuedID, n)
		for i := range log {
			log[i] = issuedID{ID: int64(r.IntN(10 * n)), At: int64(r.IntN(1000))}
		}
		var inverted int64
		var window time.Duration
		for i := range log {
			for j := range log {
				a, b := log[i], log[j]
				if a.ID < b.ID && a.At > b.At {
					inverted++
					window = max(window, time.Duration(a.At-b.At))
				}
			}
		}
		d := measureDisorder(log)
		require.Equal(t, window, d.Window, "round %d", round)
		// Equal IDs are ordered by time, so they add no inversion.
		require.Equal(t, inverted, d.InvertedPairs, "round %d", round)
	}
}

func Example_measureDisorder() {
	// Node A holds the block [1, 3] and node B [4, 6]. B hands out 4 and
	// 5 first; A hands out its block a second later.
	log := []issuedID{
		{ID: 4, At: 0}, {ID: 5, At: int64(time.Millisecond)},
		{ID: 1, At: int64(time.Second)}, {ID: 2, At: int64(time.Second + time.Millisecond)}, {ID: 3, At: int64(time.Second + 2*time.Millisecond)},
	}
	d := measureDisorder(log)
	fmt.Printf("adjacent pairs inverted: %d of %d\n", d.AdjacentInverted, d.AdjacentPairs)
	fmt.Printf("all pairs inverted: %d\n", d.InvertedPairs)
	fmt.Println("inversion window:", d.Window)
	// Output:
	// adjacent pairs inverted: 1 of 4
	// all pairs inverted: 6
	// inversion window: 1.002s
}

func TestSummarize(t *testing.T) {
	assert.Equal(t, latency{}, summarize(nil))
	d := make([]time.Duration, 100)
	for i := range d {
		d[i] = time.Duration(100 - i)
	}
	assert.Equal(t, latency{Count: 100, P50: 50, P99: 99, Max: 100}, summarize(d))
	assert.Equal(t, latency{Count: 1, P50: 7, P99: 7, Max: 7}, summarize([]time.Duration{7}))
}
