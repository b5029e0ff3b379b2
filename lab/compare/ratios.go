package compare

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// Ratio is a figure of a run normalised by what the host gave in the same
// run: a quotient of two throughputs measured side by side (a generator's
// cost per ID over that of the physical limit it is built on, its scaling
// over the limit's scaling), or a strict generator's fill of the tick slots it got to run
// in. A faster, slower or busier machine changes both sides alike, so the
// ratio holds where absolute figures do not. A cost ("ns/ID over" a
// limit: 1× is the limit, 1.08× costs 8% more) is LowerIsBetter, as the
// reports and the README print it; for every other ratio higher is
// better. Samples holds the per-repeat ratios where both sides had the
// same number of repeats (nil otherwise); Value is their median, or the
// ratio of the medians when there are no per-repeat ratios.
type Ratio struct {
	Name          string
	Value         float64
	LowerIsBetter bool
	Samples       []float64
	// Informational ratios are reported beside the gated ones but never
	// fail the gate; Why says what makes them depend on the host.
	Informational bool
	Why           string
}

// Subjects the ratios are built from.
const (
	atomicStrict    = "atomicgen/strict"
	atomicMonotonic = "atomicgen/monotonic"
	mutexMonotonic  = "mutexgen/monotonic"
	shardedScaling  = "shardedgen/node-per-shard/monotonic"
)

// Why the informational ratios are not gated; the README quotes these.
const (
	whyMutexVsCAS = "a mutex is not a compare-and-swap: their costs differ by CPU " +
		"(atomic/mutex at G=1 read 1.65 on the baseline's Xeon, 1.36 on a loaded Turin-class VM, one commit)"
	whyContended = "contended: how the scheduler hands a lock or a cache line over differs by core count and load " +
		"(1.18 to 1.83 over ten runs of one commit on a 2-vCPU VM)"
	whyLockHolder = "a contended lock: when the host deschedules the goroutine holding it, the others lose ticks " +
		"they were running in, so a busy host lowers it"
	whyCeiling = "counts the ticks the host did not let the generator run in; the tick fill beside it does not"
)

// Ratios computes a run's host-normalised ratios from its saturate
// results. Gated:
//
//   - "<generator> ns/ID over <limit> @G=1": the cost per ID of each of
//     snowlab's non-strict generators whose work per ID is its limit's
//     (one clock read and one compare-and-swap: atomicgen on the shared
//     word, shardedgen on the calling P's) over that limit subject's
//     (Subject.Limit), per interleaved repeat: the limit's IDs over the
//     generator's, so 1× is the limit and 1.08× is NextID adding 8% to
//     the least any such generator must do (LowerIsBetter).
//   - "sharded scaling @G=n": shardedgen/node-per-shard/monotonic's IDs/s
//     at the largest goroutine count over G=1, divided by the same scaling
//     of limit/per-p: a host that gives fewer cores, or lends one to
//     another process, scales both alike.
//   - "tick fill <subject> @G=n": for each of snowlab's strict generators,
//     the median over repeats of SaturateResult.TickFill: IDs over the
//     sequence space of the (tick, shard) slots they were minted in, so
//     that a tick the host took away counts for nothing.
//
// Reported, not gated (Informational, with Why): mutexgen's ns/ID over
// its limit and atomic over mutex (a mutex's cost relative to a CAS depends on the
// CPU), the contended atomic/mutex pair at the largest G, and each strict
// generator's raw ceiling fraction (IDs/s over the ceiling, which counts
// the ticks the host took away). A ratio whose inputs the run lacks (or
// whose denominator is zero) is left out; peers are never in it.
func Ratios(run *result.Run) []Ratio {
	sat := indexSaturate(run)
	var out ratioList
	out.overLimit(run.Subjects, sat)
	out.scalingOverPerP(sat)
	out.strictFill(run.Subjects, sat)
	out.atomicOverMutex(sat)
	return out
}

// saturateIndex is a run's saturate results by subject and goroutine
// count; of a point the run repeats, the first counts.
type saturateIndex map[string]map[int]*result.SaturateResult

func indexSaturate(run *result.Run) saturateIndex {
	sat := saturateIndex{}
	for i := range run.Saturate {
		r := &run.Saturate[i]
		if sat[r.Subject] == nil {
			sat[r.Subject] = map[int]*result.SaturateResult{}
		}
		if _, dup := sat[r.Subject][r.Goroutines]; !dup {
			sat[r.Subject][r.Goroutines] = r
		}
	}
	return sat
}

// maxG is the largest goroutine count measured for both a and b.
func (sat saturateIndex) maxG(a, b string) int {
	g := 0
	for n := range sat[a] {
		if _, ok := sat[b][n]; ok {
			g = max(g, n)
		}
	}
	return g
}

// ratioList is Ratios' result, in the order Ratios adds its sections.
type ratioList []Ratio

// add appends r if ok; a non-empty why makes it informational.
func (l *ratioList) add(r Ratio, ok bool, why string) {
	if ok {
		r.Informational, r.Why = why != "", why
		*l = append(*l, r)
	}
}

// overLimit adds each non-strict generator's ns/ID over its limit's at
// G=1; mutexgen's is informational.
func (l *ratioList) overLimit(subjects []result.SubjectInfo, sat saturateIndex) {
	for _, s := range subjects {
		if s.Peer || s.Physical || s.Strict || s.Limit == "" || sat[s.Name][1] == nil || sat[s.Limit][1] == nil {
			continue
		}
		why := ""
		if strings.HasPrefix(s.Name, "mutexgen/") {
			why = whyMutexVsCAS
		}
		// The limit's IDs over the generator's: its time per ID over
		// the limit's.
		r, ok := divide(fmt.Sprintf("%s ns/ID over %s @G=1", s.Name, s.Limit), sat[s.Limit][1], sat[s.Name][1])
		r.LowerIsBetter = true
		l.add(r, ok, why)
	}
}

// scalingOverPerP adds shardedgen's scaling over limit/per-p's at the
// largest goroutine count both have.
func (l *ratioList) scalingOverPerP(sat saturateIndex) {
	g := sat.maxG(shardedScaling, subject.LimitPerP)
	if g <= 1 || sat[shardedScaling][1] == nil || sat[subject.LimitPerP][1] == nil {
		return
	}
	r, ok := scaling(fmt.Sprintf("sharded scaling @G=%d", g),
		sat[shardedScaling][g], sat[shardedScaling][1], sat[subject.LimitPerP][g], sat[subject.LimitPerP][1])
	l.add(r, ok, "")
}

// strictFill adds each strict generator's tick fill (gated, but for a
// contended mutex) and raw ceiling fraction (informational) at every
// goroutine count, in increasing order.
func (l *ratioList) strictFill(subjects []result.SubjectInfo, sat saturateIndex) {
	for _, s := range subjects {
		if s.Peer || !s.Strict || sat[s.Name] == nil {
			continue
		}
		for _, g := range slices.Sorted(maps.Keys(sat[s.Name])) {
			res := sat[s.Name][g]
			if len(res.TickFill) > 0 {
				// A contended lock's holder can be descheduled holding it:
				// the other goroutines then lose ticks they were running in.
				why := ""
				if g > 1 && strings.HasPrefix(s.Name, "mutexgen/") {
					why = whyLockHolder
				}
				l.add(Ratio{Name: fmt.Sprintf("tick fill %s @G=%d", s.Name, g),
					Value: stats.Median(res.TickFill), Samples: slices.Clone(res.TickFill)}, true, why)
			}
			if s.CeilingIDs > 0 {
				r := Ratio{Name: fmt.Sprintf("ceiling fraction %s @G=%d", s.Name, g), Value: satMedian(res) / s.CeilingIDs}
				for _, v := range res.Samples {
					r.Samples = append(r.Samples, v/s.CeilingIDs)
				}
				l.add(r, true, whyCeiling)
			}
		}
	}
}

// atomicOverMutex adds the informational atomic/mutex pair: at G=1 and
// at the largest goroutine count both have.
func (l *ratioList) atomicOverMutex(sat saturateIndex) {
	if sat[atomicMonotonic][1] != nil && sat[mutexMonotonic][1] != nil {
		r, ok := divide("atomic/mutex monotonic @G=1", sat[atomicMonotonic][1], sat[mutexMonotonic][1])
		l.add(r, ok, whyMutexVsCAS)
	}
	if g := sat.maxG(atomicMonotonic, mutexMonotonic); g > 1 {
		r, ok := divide(fmt.Sprintf("atomic/mutex monotonic @G=%d", g), sat[atomicMonotonic][g], sat[mutexMonotonic][g])
		l.add(r, ok, whyContended)
	}
}

// scaling is (num at G / num at 1) over (den at G / den at 1), per repeat
// where all four have the same number of repeats, else of the medians.
func scaling(name string, numG, num1, denG, den1 *result.SaturateResult) (Ratio, bool) {
	a, okA := divide(name, numG, num1)
	b, okB := divide(name, denG, den1)
	if !okA || !okB {
		return Ratio{}, false
	}
	return quotient(name, a.Samples, b.Samples, a.Value, b.Value)
}

// satMedian is the median of a result's samples, or IDsPerSec where it
// has none.
func satMedian(r *result.SaturateResult) float64 {
	if len(r.Samples) == 0 {
		return r.IDsPerSec
	}
	return stats.Median(r.Samples)
}

// divide builds num/den per repeat where both have the same number of
// repeats, else as a ratio of medians. Per repeat it divides IDs per
// CPU-second where both sides have them (SaturateResult.CPUSamples): a
// repeat the host gave less CPU to is then no slower than another.
func divide(name string, num, den *result.SaturateResult) (Ratio, bool) {
	ns, ds := num.Samples, den.Samples
	if n := len(ns); n > 0 && len(num.CPUSamples) == n && len(den.CPUSamples) == len(ds) {
		ns, ds = num.CPUSamples, den.CPUSamples
	}
	return quotient(name, ns, ds, satMedian(num), satMedian(den))
}

// quotient is ns/ds per repeat, its median the Value, where both have
// the same number of repeats, else numMedian/denMedian; false where a
// denominator is zero (or NaN).
func quotient(name string, ns, ds []float64, numMedian, denMedian float64) (Ratio, bool) {
	r := Ratio{Name: name}
	if n := len(ns); n > 0 && n == len(ds) {
		for i := range n {
			if ds[i] == 0 {
				return r, false
			}
			r.Samples = append(r.Samples, ns[i]/ds[i])
		}
		r.Value = stats.Median(r.Samples)
		return r, true
	}
	if denMedian == 0 || math.IsNaN(denMedian) {
		return r, false
	}
	r.Value = numMedian / denMedian
	return r, true
}
