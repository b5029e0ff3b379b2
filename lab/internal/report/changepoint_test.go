package report

import (
	"math/rand/v2"
	"testing"
)

// noisy is n points around level with Gaussian noise of relative sd,
// seeded.
func noisy(rng *rand.Rand, n int, level, sd float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = level * (1 + sd*rng.NormFloat64())
	}
	return out
}

// TestChangePlantedStep: a 10% step in 3%-noise is found at the first point of
// the new level, in a short history (13 runs, as results/ holds) and in
// one longer than a window.
func TestChangePlantedStep(t *testing.T) {
	for _, tc := range []struct{ before, after int }{{6, 7}, {40, 45}} {
		rng := rand.New(rand.NewPCG(1, 2))
		xs := append(noisy(rng, tc.before, 1.0, 0.03), noisy(rng, tc.after, 1.1, 0.03)...)
		got := findChanges(xs, 7)
		if len(got) != 1 || got[0].Index != tc.before {
			t.Fatalf("%d+%d: change points %+v, want one at %d", tc.before, tc.after, got, tc.before)
		}
		if c := got[0]; c.After <= c.Before || c.P > ChangePointP {
			t.Errorf("%d+%d: %+v: want a rise, p <= %g", tc.before, tc.after, c, ChangePointP)
		}
	}
}

// TestChangeTwoSteps: a rise and a later fall are both found.
func TestChangeTwoSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := append(append(noisy(rng, 10, 1.0, 0.02), noisy(rng, 10, 1.3, 0.02)...), noisy(rng, 10, 1.0, 0.02)...)
	got := findChanges(xs, 1)
	if len(got) != 2 || got[0].Index != 10 || got[1].Index != 20 {
		t.Fatalf("change points %+v, want at 10 and 20", got)
	}
}

// TestChangeFlatNoise: flat series, however noisy, give none (seeded: the same
// series and seed give the same answer every time).
func TestChangeFlatNoise(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 9))
		xs := noisy(rng, 13+int(seed)*3, 1.0, 0.15)
		if got := findChanges(xs, seed); len(got) != 0 {
			t.Errorf("seed %d: change points %+v in a flat series", seed, got)
		}
	}
}

// TestChangeShortSeries: fewer points than two minimum segments: nothing to
// split.
func TestChangeShortSeries(t *testing.T) {
	if got := findChanges([]float64{1, 5, 1, 5, 1}, 0); len(got) != 0 {
		t.Errorf("%+v", got)
	}
	if got := findChanges(nil, 0); len(got) != 0 {
		t.Errorf("%+v", got)
	}
}
