package gates

import (
	"math"
	"slices"

	"github.com/snowlab/snowlab/lab/internal/ab"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

// schema is the gates result's schema version: 2 has the A/B gate and no
// wall, compare or ratio gate.
const schema = 2

// Result is one run of loadgen gates.
type Result struct {
	result.Header
	Pairs  int       `json:"pairs"`
	Trials int       `json:"trials"`
	Levels []float64 `json:"levels_pct"`
	Loads  []string  `json:"loads"`
	Gates  []string  `json:"gates"`
	// Paths are the instruction paths counted.
	Paths []string `json:"instr_paths,omitempty"`
	// AB is loadgen ab's configuration for every A/B run.
	AB *abConfig `json:"ab,omitempty"`
	// Planted is the q of extra calls each level was planted with at G=1
	// and the instructions per call it added (counted). InstrStep is
	// what one instruction-side step counted (instr.StepCost).
	Planted   []plantedLevel `json:"planted,omitempty"`
	InstrStep float64        `json:"instr_step_instructions,omitempty"`
	// HogThreads and HogCPUSeconds: the hog's goroutines and the CPU time
	// it took over all its pairs.
	HogThreads    int     `json:"hog_threads"`
	HogCPUSeconds float64 `json:"hog_cpu_seconds"`
	// Decisions are every decision, same-code pairs and planted.
	Decisions []decision `json:"decisions"`
	// Failures are the goals missed and correctness failures in a run.
	Failures []string `json:"failures,omitempty"`
}

// abConfig is what each loadgen ab run measured with.
type abConfig struct {
	Rounds     int     `json:"rounds"`
	SliceMS    float64 `json:"slice_ms"`
	WarmupMS   float64 `json:"warmup_ms"`
	ab.Options `json:"options"`
}

// plantedLevel is a level planted at G=1: Q extra calls per 1,024,
// adding Instr percent to the measured subject's instructions per call.
type plantedLevel struct {
	Pct   float64 `json:"pct"`
	Q     int     `json:"q"`
	Instr float64 `json:"instr_pct"`
}

// decision is one gate's verdict on one pair.
type decision struct {
	Gate string `json:"gate"`
	Load string `json:"load"`
	// Plant is "" for a same-code pair, plantSlow (Pct percent more
	// instructions at G=1) or plantContention (the contention plant).
	Plant string  `json:"plant,omitempty"`
	Pct   float64 `json:"pct"`
	Pair  int     `json:"pair"`
	// Failed is the gate failing: a false alarm for a same-code pair, a
	// detection otherwise.
	Failed bool `json:"failed"`
	// Detail names what failed, or the worst change where nothing did.
	Detail string `json:"detail,omitempty"`
	// Measured is what the plant came to, percent: the A/B gate's
	// estimate for the measured subject (G=1 for the calls plant,
	// GOMAXPROCS for the contention plant); on the instruction side the
	// mean change over the paths, and for the contention plant the
	// largest over the subjects.
	Measured *float64 `json:"measured_pct,omitempty"`
	// G1 is, for the A/B gate on the contention plant, its estimate for
	// the measured subject at G=1, percent: what the plant costs where
	// no goroutine shares its line. Failed is then a workload at
	// GOMAXPROCS DIFFERENT and worse, whatever G=1 read.
	G1 *float64 `json:"g1_pct,omitempty"`
	// Largest1 and LargestG are, for an A/B same-code pair, the largest
	// change any workload read at G=1 and above, percent: the noise the
	// gate sees through.
	Largest1 *float64 `json:"largest_change_g1_pct,omitempty"`
	LargestG *float64 `json:"largest_change_gp_pct,omitempty"`
}

// Cell is a summary of decisions: how many failed of how many, and the
// median measured slowdown.
type Cell struct {
	Failed, Of int
	Measured   float64 // NaN when none measured
}

// Summary counts the decisions of one gate, load, plant and level.
func (r *Result) Summary(gate, load, plant string, pct float64) Cell {
	var c Cell
	var m []float64
	for _, d := range r.Decisions {
		if d.Gate != gate || d.Load != load || d.Plant != plant || d.Pct != pct {
			continue
		}
		c.Of++
		if d.Failed {
			c.Failed++
		}
		if d.Measured != nil {
			m = append(m, *d.Measured)
		}
	}
	c.Measured = stats.Median(m)
	return c
}

// figures are pick's figure of each decision of gate, load and plant (at
// every level) that has one.
func (r *Result) figures(gate, load, plant string, pick func(decision) *float64) []float64 {
	var v []float64
	for _, d := range r.Decisions {
		if x := pick(d); d.Gate == gate && d.Load == load && d.Plant == plant && x != nil {
			v = append(v, *x)
		}
	}
	return v
}

// contentionG1 is the median, over the A/B gate's contention plants
// under load, of what the plant read at G=1, percent (NaN where none).
func (r *Result) contentionG1(load string) float64 {
	return stats.Median(r.figures(gateAB, load, plantContention, func(d decision) *float64 { return d.G1 }))
}

// noise is the largest and the median, over the A/B gate's same-code
// pairs of load, of the largest change any workload read at G=1 (one)
// or above, percent (NaN where none).
func (r *Result) noise(load string, one bool) (most, median float64) {
	v := r.figures(gateAB, load, "", func(d decision) *float64 { return map[bool]*float64{true: d.Largest1, false: d.LargestG}[one] })
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Max(v), stats.Median(v)
}
