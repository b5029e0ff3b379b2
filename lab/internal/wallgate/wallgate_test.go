package wallgate

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/snowlab/snowlab/lab/result"
)

func TestUCountsAndCriticalK(t *testing.T) {
	total := 0.0
	for _, c := range uCounts(6, 6) {
		total += c
	}
	if total != 924 { // C(12, 6)
		t.Errorf("uCounts(6, 6) sum to %v, want 924", total)
	}
	// Tables of the two-sided 5% critical U: 5 for 6+6, 1 for 4+5;
	// the interval starts one past it. 3+3 cannot reach 5% at all.
	for _, c := range []struct{ n1, n2, k int }{{6, 6, 6}, {4, 5, 2}, {3, 3, 0}} {
		if k := criticalK(c.n1, c.n2, 0.05); k != c.k {
			t.Errorf("criticalK(%d, %d) = %d, want %d", c.n1, c.n2, k, c.k)
		}
	}
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

// run is a check-shaped run: atomicgen/monotonic and its limit at G=1
// and G=2, six repeats each. The generator's IDs per CPU-second are the
// limit's divided by cost[g] (with a small spread), so cost is its ns/ID
// over the limit.
func run(cost1, cost2 float64) *result.Run {
	r := &result.Run{Schema: result.SchemaVersion, Commit: "abc1234", Subjects: []result.SubjectInfo{
		{Name: "atomicgen/monotonic", Limit: "limit/clock+cas"},
		{Name: "limit/clock+cas", Physical: true},
	}}
	spread := []float64{1, 1.02, 0.98, 1.01, 0.99, 1.03}
	for g, cost := range map[int]float64{1: cost1, 2: cost2} {
		var lim, gen []float64
		for _, s := range spread {
			lim = append(lim, 1e7*s)
			gen = append(gen, 1e7/cost/s)
		}
		r.Saturate = append(r.Saturate,
			result.SaturateResult{Subject: "limit/clock+cas", Goroutines: g, Samples: lim, CPUSamples: lim, IDsPerSec: 1e7},
			result.SaturateResult{Subject: "atomicgen/monotonic", Goroutines: g, Samples: gen, CPUSamples: gen, IDsPerSec: 1e7 / cost})
	}
	return r
}

func decision(t *testing.T, rep Report, name string) Row {
	t.Helper()
	for _, r := range rep.Rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no row %q in %+v", name, rep.Rows)
	return Row{}
}

const (
	g1 = "atomicgen/monotonic ns/ID over limit/clock+cas @G=1"
	g2 = "atomicgen/monotonic ns/ID over limit/clock+cas @G=2"
)

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		what         string
		cost1, cost2 float64
		d1, d2       Decision
		fail         bool
	}{
		{"same code", 1.1, 1.3, Same, Same, false},
		{"10% dearer: within the minimum effect", 1.21, 1.3, Same, Same, false},
		{"30% dearer: a 23% loss whose interval straddles 25%", 1.43, 1.3, Unknown, Same, false},
		{"G=1 twice as dear", 2.2, 1.3, Different, Same, true},
		{"contention twice as dear", 1.1, 2.6, Same, Different, true},
		{"twice as cheap", 0.55, 1.3, Different, Same, false},
	} {
		rep, err := Decide(run(1.1, 1.3), run(c.cost1, c.cost2), Options{})
		if err != nil {
			t.Fatal(err)
		}
		r1, r2 := decision(t, rep, g1), decision(t, rep, g2)
		if r1.Decision != c.d1 || r2.Decision != c.d2 || (rep.Err() != nil) != c.fail {
			t.Errorf("%s: G=1 %s, G=2 %s, err %v; want %s, %s, failing %v", c.what, r1.Decision, r2.Decision, rep.Err(), c.d1, c.d2, c.fail)
		}
		if !r2.Contention {
			t.Errorf("%s: the G=2 row is not marked contention", c.what)
		}
		var out bytes.Buffer
		if err := rep.Write(&out); err != nil || !strings.Contains(out.String(), string(r2.Decision)) {
			t.Errorf("%s: Write: %v\n%s", c.what, err, out.String())
		}
	}
}

func TestDecideRefuses(t *testing.T) {
	if _, err := Decide(run(1, 1), run(1, 1), Options{MinEffect: 1.5}); !errors.Is(err, ErrOptions) {
		t.Errorf("min effect 1.5: %v, want ErrOptions", err)
	}
	rep, err := Decide(&result.Run{Schema: result.SchemaVersion}, run(1, 1), Options{})
	if err != nil || !errors.Is(rep.Err(), ErrNothingTested) {
		t.Errorf("nothing shared: %v, %v; want ErrNothingTested", err, rep.Err())
	}
	bad := run(1.1, 1.3)
	bad.Failures = []string{"duplicate ID"}
	if rep, _ := Decide(run(1.1, 1.3), bad, Options{}); rep.Err() == nil {
		t.Error("a new run with a correctness failure passed")
	}
}
