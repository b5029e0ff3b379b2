package gates

import (
	"math"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

// Schema is the gates result's schema version.
const Schema = 1

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
	// Calibration is what each q of planted steps (in 1/1024ths a call)
	// cost atomicgen/monotonic in a tight loop, quiet, before the first
	// pair; Planted the q each level was planted with, interpolated from
	// it. InstrStep is what one instruction-side step counted
	// (instr.StepCost).
	Calibration []CalPoint     `json:"calibration,omitempty"`
	Planted     []PlantedLevel `json:"planted,omitempty"`
	InstrStep   float64        `json:"instr_step_instructions,omitempty"`
	// HogThreads and HogCPUSeconds: the hog's goroutines and the CPU time
	// it took over all its pairs.
	HogThreads    int     `json:"hog_threads"`
	HogCPUSeconds float64 `json:"hog_cpu_seconds"`
	// Trials are every decision, same-code pairs (Pct 0) and planted.
	Decisions []Decision `json:"decisions"`
	// Limits are each gated cost-over-limit ratio over the clean runs.
	Limits []LimitRow `json:"limits,omitempty"`
	// Failures are the goals missed (a false alarm, the instruction gate
	// missing 3%) and correctness failures in a run.
	Failures []string `json:"failures,omitempty"`
}

// Decision is one gate's verdict on one pair.
type Decision struct {
	Gate string `json:"gate"`
	Load string `json:"load"`
	// Pct is the planted slowdown, 0 for a same-code pair.
	Pct  float64 `json:"pct"`
	Pair int     `json:"pair"`
	// Failed is the gate failing: a false alarm where Pct is 0, a
	// detection otherwise.
	Failed bool `json:"failed"`
	// Detail names what failed, or the worst change where nothing did.
	Detail string `json:"detail,omitempty"`
	// Measured is what the planted slowdown came to, percent (wall side:
	// atomicgen/monotonic's IDs per CPU-second at G=1, clean over
	// planted; instruction side: the mean change over the paths). NaN
	// (absent) where not measured.
	Measured *float64 `json:"measured_pct,omitempty"`
	// Loss is the wall gate's largest loss estimate over its ratios,
	// percent (Hodges-Lehmann; the fewer IDs for the same work): on
	// same-code pairs, the noise the gate has to see through.
	Loss *float64 `json:"largest_loss_pct,omitempty"`
	// Runs is how many runs of the suite the wall gate measured to
	// decide (the first, pooled ones and a confirmation).
	Runs int `json:"runs,omitempty"`
}

// LimitRow is one gated cost-over-limit ratio (a generator's ns/ID over
// its limit's, 1.00 the limit) over one load's clean runs.
type LimitRow struct {
	Load   string  `json:"load"`
	Ratio  string  `json:"ratio"`
	Runs   int     `json:"runs"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Below  int     `json:"below_1"` // runs whose median read below 1.00
}

// Cell is a summary of decisions: how many failed of how many, and the
// median measured slowdown.
type Cell struct {
	Failed, Of int
	Measured   float64 // NaN when none measured
}

// Summary counts the decisions of one gate, load and level.
func (r *Result) Summary(gate, load string, pct float64) Cell {
	c := Cell{Measured: math.NaN()}
	var m []float64
	for _, d := range r.Decisions {
		if d.Gate != gate || d.Load != load || d.Pct != pct {
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
	if len(m) > 0 {
		c.Measured = stats.Median(m)
	}
	return c
}

// limits summarises the cost-over-limit ratios collected per load.
func limits(samples map[string]map[string][]float64) []LimitRow {
	var rows []LimitRow
	for _, load := range allLoads {
		byRatio := samples[load]
		names := make([]string, 0, len(byRatio))
		for n := range byRatio {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			v := byRatio[n]
			row := LimitRow{Load: load, Ratio: n, Runs: len(v), Min: slices.Min(v), Median: stats.Median(v)}
			for _, x := range v {
				if x < 1 {
					row.Below++
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// isLimitRatio is whether a gated ratio is a generator's cost over its
// limit's.
func isLimitRatio(name string) bool { return strings.Contains(name, " ns/ID over limit/") }

// Noise is the largest and the median of the wall gate's largest loss
// over the same-code pairs of load (NaN where none).
func (r *Result) Noise(load string) (most, median float64) {
	var v []float64
	for _, d := range r.Decisions {
		if d.Gate == GateWall && d.Load == load && d.Pct == 0 && d.Loss != nil {
			v = append(v, *d.Loss)
		}
	}
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Max(v), stats.Median(v)
}
