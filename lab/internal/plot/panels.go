package plot

import (
	"math"
	"slices"

	"github.com/snowlab/snowlab/lab/internal/stats"
)

// MaxSeries is the most series a panel draws. Eight is as many as the
// markers tell apart (glyphs) and as many as a reader can follow to the
// legend and back; beyond it a chart becomes small multiples.
const MaxSeries = 8

// outlierFactor is how far, as a factor, a series' value may lie from the
// median of the others' before it is an outlier and drawn on a panel of
// its own: 30, about a decade and a half. The generators of one run span
// less (a strict generator's 2M/s to a monotonic one's 50M/s is 25×), and
// a series 30× away adds a decade and more of empty axis that squeezes
// the rest together (Sonyflake's defaults, 25.6k/s, under generators at
// 4M/s to 48M/s: 160× to 1900×).
const outlierFactor = 30

// PanelItem is a series to lay out: its name, the group it belongs to
// (panels never mix groups) and the value the outlier rule reads (on a
// log scale; a value that is not positive is never an outlier).
type PanelItem struct {
	Name, Group string
	Value       float64
}

// Panel is one panel of small multiples: the group its series belong to
// and their names in the order given.
type Panel struct {
	Group string
	Names []string
}

// Panels lays items out as small multiples: each group's series, in the
// order the groups first appear, then the outliers, as the group far, on
// panels of at most max series (MaxSeries when max < 1), a group too big
// for one split into as few panels as hold it, of sizes within one of
// each other.
func Panels(items []PanelItem, max int, far string) []Panel {
	if max < 1 {
		max = MaxSeries
	}
	values := make([]float64, len(items))
	for i, it := range items {
		values[i] = it.Value
	}
	out := outliers(values)
	var groups []string
	byGroup := map[string][]string{}
	var outlying []string
	for i, it := range items {
		if out[i] {
			outlying = append(outlying, it.Name)
			continue
		}
		if _, ok := byGroup[it.Group]; !ok {
			groups = append(groups, it.Group)
		}
		byGroup[it.Group] = append(byGroup[it.Group], it.Name)
	}
	var panels []Panel
	for _, g := range groups {
		for _, names := range chunks(byGroup[g], max) {
			panels = append(panels, Panel{Group: g, Names: names})
		}
	}
	for _, names := range chunks(outlying, max) {
		panels = append(panels, Panel{Group: far, Names: names})
	}
	return panels
}

// chunks splits names into as few runs of at most max as hold them, of
// sizes within one of each other (9 as 5 and 4, not 8 and 1), the larger first.
func chunks(names []string, max int) [][]string {
	if len(names) == 0 {
		return nil
	}
	n := (len(names) + max - 1) / max
	size, extra := len(names)/n, len(names)%n
	var out [][]string
	for i, lo := 0, 0; i < n; i++ {
		hi := lo + size
		if i < extra {
			hi++ // the first panels take one more
		}
		out = append(out, slices.Clone(names[lo:hi]))
		lo = hi
	}
	return out
}

// outliers marks the values more than outlierFactor away from the median
// of the other values, on a log scale. With fewer than three positive
// values nothing is an outlier (two values are as far from each other
// either way), and when more than a third would be, none is: the axis
// must then span them all.
func outliers(values []float64) []bool {
	out := make([]bool, len(values))
	var logs []float64
	for _, v := range values {
		if v > 0 && !math.IsInf(v, 0) {
			logs = append(logs, math.Log10(v))
		}
	}
	if len(logs) < 3 {
		return out
	}
	limit := math.Log10(outlierFactor)
	n := 0
	for i, v := range values {
		if !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		lv := math.Log10(v)
		k := slices.Index(logs, lv)
		others := slices.Delete(slices.Clone(logs), k, k+1)
		if math.Abs(lv-stats.Median(others)) > limit {
			out[i] = true
			n++
		}
	}
	if 3*n > len(logs) {
		return make([]bool, len(values))
	}
	return out
}
