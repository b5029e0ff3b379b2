package plot

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutliers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		want   []bool
	}{
		{"sonyflake's defaults under the generators",
			[]float64{4.1e6, 4.1e6, 25e6, 48e6, 4.1e6, 27_355, 17e6, 4.9e6},
			[]bool{false, false, false, false, false, true, false, false}},
		{"one far above", []float64{1e6, 2e6, 3e6, 5e8}, []bool{false, false, false, true}},
		{"the standard spread: 2M/s to 50M/s is not an outlier", []float64{2e6, 4e6, 8e6, 25e6, 50e6},
			[]bool{false, false, false, false, false}},
		{"29× away is not", []float64{2.9e6, 2.9e6, 2.9e6, 1e5}, []bool{false, false, false, false}},
		{"31× away is", []float64{3.1e6, 3.1e6, 3.1e6, 1e5}, []bool{false, false, false, true}},
		{"two values: neither", []float64{1, 1e6}, []bool{false, false}},
		{"half far: none (the axis spans them all)", []float64{1, 1, 1e6, 1e6}, []bool{false, false, false, false}},
		{"zero and NaN are never outliers", []float64{0, 4e6, 4e6, 4e6, -1}, []bool{false, false, false, false, false}},
		{"none", nil, []bool{}},
	} {
		assert.Equal(t, tc.want, outliers(tc.values), tc.name)
	}
}

func TestPanels(t *testing.T) {
	item := func(name, group string, v float64) PanelItem { return PanelItem{Name: name, Group: group, Value: v} }
	var many []PanelItem
	for i := range 17 {
		many = append(many, item(fmt.Sprint("s", i), "g", 1e6))
	}
	for _, tc := range []struct {
		name  string
		items []PanelItem
		max   int
		want  []Panel
	}{
		{"one group that fits", []PanelItem{item("a", "g", 1), item("b", "g", 2)}, 8,
			[]Panel{{Group: "g", Names: []string{"a", "b"}}}},
		{"groups apart, in the order they appear, the outlier last",
			[]PanelItem{item("strict", "own", 4e6), item("peer", "peers", 4e6), item("mono", "own", 40e6),
				item("sonyflake", "peers", 25_600), item("peer2", "peers", 9e6)}, 8,
			[]Panel{{Group: "own", Names: []string{"strict", "mono"}}, {Group: "peers", Names: []string{"peer", "peer2"}},
				{Group: "far", Names: []string{"sonyflake"}}}},
		{"17 in one group: three panels of 6, 6 and 5", many, 8, []Panel{
			{Group: "g", Names: []string{"s0", "s1", "s2", "s3", "s4", "s5"}},
			{Group: "g", Names: []string{"s6", "s7", "s8", "s9", "s10", "s11"}},
			{Group: "g", Names: []string{"s12", "s13", "s14", "s15", "s16"}}}},
		{"max 0 is MaxSeries", many[:9], 0, []Panel{
			{Group: "g", Names: []string{"s0", "s1", "s2", "s3", "s4"}},
			{Group: "g", Names: []string{"s5", "s6", "s7", "s8"}}}},
		{"nothing", nil, 8, nil},
	} {
		got := Panels(tc.items, tc.max, "far")
		assert.Equal(t, tc.want, got, tc.name)
		n := 0
		for _, p := range got {
			most := tc.max
			if most < 1 {
				most = MaxSeries
			}
			assert.LessOrEqual(t, len(p.Names), most, "%s: a panel over the most", tc.name)
			n += len(p.Names)
		}
		assert.Equal(t, len(tc.items), n, "%s: every series on a panel, once", tc.name)
	}
}
