package alternatives

import (
	"cmp"
	"slices"
	"time"
)

// issuedID is one ID and the moment it was handed out, in nanoseconds on
// the run's monotonic clock (since the run began), so that a step of the
// wall clock during a run cannot pass for disorder.
type issuedID struct {
	ID int64
	At int64
}

// disorder is how far the order of the IDs strays from the order in which
// they were handed out.
type disorder struct {
	// IDs is how many IDs were measured, Duplicates how many of them
	// repeat an ID already counted (anything but 0 is a broken scheme).
	IDs        int64 `json:"ids"`
	Duplicates int64 `json:"duplicates"`
	// AdjacentPairs is IDs-1; AdjacentInverted is how many neighbours in
	// the ID-sorted list were handed out in the other order (the later ID
	// earlier), and AdjacentShare their share: the adjacent-pair estimate
	// of how often two IDs disagree with time.
	AdjacentPairs    int64   `json:"adjacent_pairs"`
	AdjacentInverted int64   `json:"adjacent_inverted"`
	AdjacentShare    float64 `json:"adjacent_share"`
	// InvertedPairs counts every pair, not just neighbours, whose ID order
	// and hand-out order disagree (an inversion count), and PairShare is
	// its share of all n(n-1)/2 pairs.
	InvertedPairs int64   `json:"inverted_pairs"`
	PairShare     float64 `json:"pair_share"`
	// Window is the inversion window: the largest time by which an ID
	// sorts before one handed out earlier. 0 when the IDs are in time
	// order.
	Window time.Duration `json:"window_ns"`
}

// measureDisorder computes the disorder of issues. It sorts issues by ID
// (and by time among equal IDs) in place.
func measureDisorder(issues []issuedID) disorder {
	slices.SortFunc(issues, func(a, b issuedID) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.At, b.At))
	})
	n := int64(len(issues))
	d := disorder{IDs: n}
	if n < 2 {
		return d
	}
	d.AdjacentPairs = n - 1
	latest := issues[0].At // the latest hand-out time among the IDs sorted so far
	for i := 1; i < len(issues); i++ {
		is, prev := issues[i], issues[i-1]
		if is.ID == prev.ID {
			d.Duplicates++
		}
		if is.At < prev.At {
			d.AdjacentInverted++
		}
		if w := latest - is.At; w > int64(d.Window) {
			d.Window = time.Duration(w)
		}
		latest = max(latest, is.At)
	}
	d.AdjacentShare = float64(d.AdjacentInverted) / float64(d.AdjacentPairs)
	times := make([]int64, n)
	for i, is := range issues {
		times[i] = is.At
	}
	d.InvertedPairs = countInversions(times, make([]int64, n))
	d.PairShare = float64(d.InvertedPairs) / (float64(n) * float64(n-1) / 2)
	return d
}

// countInversions counts the pairs i < j with v[i] > v[j] by merge sort,
// O(n log n), sorting v; buf is scratch of v's length.
func countInversions(v, buf []int64) int64 {
	if len(v) < 2 {
		return 0
	}
	mid := len(v) / 2
	n := countInversions(v[:mid], buf[:mid]) + countInversions(v[mid:], buf[mid:])
	out := buf[:0]
	i, j := 0, mid
	for i < mid && j < len(v) {
		if v[j] < v[i] {
			// v[j] is smaller than every element left in the first half.
			n += int64(mid - i)
			out = append(out, v[j])
			j++
		} else {
			out = append(out, v[i])
			i++
		}
	}
	out = append(out, v[i:mid]...)
	out = append(out, v[j:]...)
	copy(v, out)
	return n
}
