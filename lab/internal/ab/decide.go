package ab

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	moremath "github.com/aclements/go-moremath/stats"

	"github.com/snowlab/snowlab/lab/internal/stats"
)

// ErrOptions is an alpha or a minimum effect outside (0, 1).
var ErrOptions = errors.New("ab: bad option")

// Defaults. Alpha is the family-wise error rate Holm's correction holds
// over every gated workload together: 1%, because on this repository's
// 2-core VM at a load average of 31 one of nine same-code workloads read
// +4.3% (+1.7%, +6.8%) at G=1, p = 0.058 after Holm, a hair from a false
// alarm at 5%; a planted 5% there reads p < 0.0001. The minimum effects
// are changes in CPU time per ID: at load averages of 15 to 25, 20
// same-code pairs of 50 ms slices spread by 1.4-2.8% (sd of the per-pair
// log-ratio) at G=1, where one thread's CPU time is read, 5% at 31; and
// by 3-13% above, where the scheduler decides who runs beside whom; a 3%
// minimum effect at G=1 is then 2.5 to 6 standard errors of the 20-pair
// estimate from zero, 10% above over 3.
const (
	DefaultAlpha              = 0.01
	DefaultMinEffect          = 0.03
	DefaultMinEffectContended = 0.10
)

// decision is a comparison's verdict.
type decision string

// The decisions (as Chromium's Pinpoint makes them).
const (
	// Different: significant after Holm's correction and at least the
	// minimum effect.
	Different decision = "DIFFERENT"
	// Same: the interval lies within the minimum effect both ways.
	Same decision = "SAME"
	// Unknown: neither; more rounds would tell.
	unknown decision = "UNKNOWN"
)

// Options are the decision's thresholds; zero fields take the defaults.
type Options struct {
	Alpha float64 `json:"alpha"`
	// MinEffect is the smallest change in cost per ID that can be
	// DIFFERENT at G=1, MinEffectContended above.
	MinEffect          float64 `json:"min_effect"`
	MinEffectContended float64 `json:"min_effect_contended"`
}

// WithDefaults is o with its zero fields set to the defaults, checked.
func (o Options) WithDefaults() (Options, error) {
	o.Alpha = cmp.Or(o.Alpha, DefaultAlpha)
	o.MinEffect = cmp.Or(o.MinEffect, DefaultMinEffect)
	o.MinEffectContended = cmp.Or(o.MinEffectContended, DefaultMinEffectContended)
	for _, v := range []float64{o.Alpha, o.MinEffect, o.MinEffectContended} {
		if math.IsNaN(v) || v <= 0 || v >= 1 {
			return o, fmt.Errorf("%w: %v: want a fraction between 0 and 1", ErrOptions, v)
		}
	}
	return o, nil
}

// Row is one comparison of two arms on one workload: the new arm's cost
// per ID over the base arm's, pair by pair.
type Row struct {
	Workload Workload `json:"workload"`
	// Base and New are the arms compared.
	Base string `json:"base"`
	New  string `json:"new"`
	// Pairs is how many rounds measured both.
	Pairs    int      `json:"pairs"`
	Decision decision `json:"decision"`
	// Worse is Different and dearer.
	Worse bool   `json:"worse,omitempty"`
	Why   string `json:"why,omitempty"`
	// BaseCost and NewCost are the median costs per ID, nanoseconds (CPU
	// time where read, wall otherwise); BaseRate and NewRate the median
	// wall-time IDs per second, shown, never decided on.
	BaseCost Number `json:"base_ns_per_id"`
	NewCost  Number `json:"new_ns_per_id"`
	BaseRate Number `json:"base_ids_per_s"`
	NewRate  Number `json:"new_ids_per_s"`
	// Change is the Hodges-Lehmann estimate of the new arm's cost per
	// ID over the base's, less 1 (+0.05: 5% dearer), and ChangeLo,
	// ChangeHi its interval at 1-Alpha; Spread the standard deviation of
	// the per-pair log-ratios.
	Change   Number `json:"change"`
	ChangeLo Number `json:"change_lo"`
	ChangeHi Number `json:"change_hi"`
	Spread   Number `json:"spread"`
	// P is the signed-rank test's; PAdj after the correction for the
	// family the row is decided in.
	P    Number `json:"p"`
	PAdj Number `json:"p_adj"`
}

// compare is the row of new over base on one workload from their paired
// costs (base[i] and new[i] measured in the same round) and wall rates.
func compare(w Workload, baseName, newName string, base, new, baseRate, newRate []float64, alpha float64) Row {
	r := Row{Workload: w, Base: baseName, New: newName, BaseCost: Number(stats.Median(base)),
		NewCost: Number(stats.Median(new)), BaseRate: Number(stats.Median(baseRate)), NewRate: Number(stats.Median(newRate))}
	var d []float64
	for i := range base {
		if base[i] > 0 && new[i] > 0 {
			d = append(d, math.Log(new[i]/base[i]))
		}
	}
	r.Pairs, r.Spread = len(d), Number(math.NaN())
	if len(d) >= 2 {
		r.Spread = Number(moremath.StdDev(d))
	}
	p, est, lo, hi := signedRank(d, alpha)
	r.P, r.PAdj = Number(p), Number(p)
	r.Change, r.ChangeLo, r.ChangeHi = Number(math.Expm1(est)), Number(math.Expm1(lo)), Number(math.Expm1(hi))
	return r
}

// decide sets every row's adjusted p (Holm over the rows; Bonferroni over
// family rows where family exceeds their count, so that a row decided
// alone is held as one of family) and its decision.
func decide(rows []Row, o Options, family int) {
	ps := make([]float64, len(rows))
	for i, r := range rows {
		ps[i] = float64(r.P)
	}
	adj := holm(ps)
	for i := range rows {
		r := &rows[i]
		r.PAdj = Number(adj[i])
		if family > len(rows) {
			r.PAdj = min(1, r.P*Number(family))
		}
		me := o.MinEffect
		if r.Workload.G > 1 {
			me = o.MinEffectContended
		}
		switch {
		case math.IsNaN(float64(r.PAdj)) || r.Pairs == 0:
			r.Decision, r.Why = unknown, "no pairs measured"
		case float64(r.PAdj) <= o.Alpha && math.Abs(float64(r.Change)) >= me:
			r.Decision, r.Worse = Different, r.Change > 0
			r.Why = fmt.Sprintf("significant (p=%.3g adjusted) and beyond the %.0f%% minimum effect", r.PAdj, 100*me)
		case float64(r.ChangeLo) > -me && float64(r.ChangeHi) < me:
			r.Decision = Same
			r.Why = fmt.Sprintf("the interval lies within ±%.0f%%", 100*me)
		default:
			r.Decision = unknown
			r.Why = "neither shown different nor within the minimum effect: more rounds would tell"
		}
	}
}

// Number is a figure that JSON writes as null where it is NaN or infinite
// (no pairs; an interval too few pairs cannot give).
type Number float64

// MarshalJSON writes n, null where it is NaN or infinite.
func (n Number) MarshalJSON() ([]byte, error) {
	if f := float64(n); math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}
