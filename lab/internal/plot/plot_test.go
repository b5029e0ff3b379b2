package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/snowlab/snowlab/lab/internal/units"
)

func si(v float64) string { return units.SI(v, 3, true) }

func TestScale(t *testing.T) {
	labels := func(a *gplot.Axis) []string {
		var out []string
		for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		lo, hi   float64
		forceLog bool
		log      bool
		min, max float64
		labels   []string
	}{
		{1e6, 50e6, false, false, 0, 53e6, []string{"0", "10M", "20M", "30M", "40M", "50M"}},
		{1, 100, false, false, 0, 106, []string{"0", "20", "40", "60", "80", "100"}},
		{1, 100.1, false, true, 1, 1000, []string{"1", "10", "100", "1k"}},
		{25_400, 48.2e6, false, true, 10_000, 100e6, []string{"10k", "100k", "1M", "10M", "100M"}},
		{0, 1e6, true, false, 0, 1.06e6, []string{"0", "200k", "400k", "600k", "800k", "1M"}}, // zero cannot go on a log axis
		{3, 3, true, true, 1, 10, []string{"1", "10"}},
		{0, 0, false, false, 0, 1, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
	} {
		a, label := &gplot.New().Y, "y"
		assert.Equal(t, c.log, Scale(a, &label, c.lo, c.hi, si, c.forceLog), "log for %v", c)
		assert.Equal(t, c.log, label == "y (log scale)", "label for %v", c)
		assert.InDelta(t, c.min, a.Min, c.max*1e-9, "min for %v", c)
		assert.InDelta(t, c.max, a.Max, c.max*1e-9, "max for %v", c)
		assert.Equal(t, c.labels, labels(a), "labels for %v", c)
	}
	a := &gplot.New().Y
	Scale(a, new(string), 1, 1e6, si, false)
	assert.Empty(t, a.Tick.Marker.Ticks(1, 1), "an empty range has no ticks, where gonum would panic")
	assert.Empty(t, a.Tick.Marker.Ticks(0, 1), "nor has a log axis from zero")
	assert.Equal(t, []string{"0.1", "1", "10"}, labels(&gplot.Axis{Min: 0.1, Max: 10, Tick: a.Tick}), "from 0.1")
}

func TestLinTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (linTicks{si}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"0", "10M", "20M", "30M", "40M", "50M"}, labels(0, 51e6))
	assert.Equal(t, []string{"0", "1M", "2M", "3M", "4M"}, labels(0, 4.34e6))
	assert.Equal(t, []string{"0", "0.5", "1", "1.5", "2", "2.5"}, labels(0, 2.6))
	assert.Equal(t, []string{"20", "40", "60", "80", "100"}, labels(12, 110))
	assert.Empty(t, (linTicks{si}).Ticks(1, 1))
}

func TestYErrs(t *testing.T) {
	e := YErrs{{X: 1, Y: 10, Lo: 8, Hi: 13}}
	lo, hi := e.YError(0)
	assert.Equal(t, 2.0, lo)
	assert.Equal(t, 3.0, hi)
	x, y := e.XY(0)
	assert.Equal(t, [2]float64{1, 10}, [2]float64{x, y})
	assert.False(t, math.IsNaN(lo))
}

// TestLayoutTallLegend: a legend taller than the page asked for makes the
// page taller, never runs off it.
func TestLayoutTallLegend(t *testing.T) {
	c := New("t", "s", "x", "y", 6*vg.Inch, 2*vg.Inch)
	for i := range 40 {
		c.Line(fmt.Sprintf("shardedgen/node-per-shard/strict %d", i), Series(i), plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 2}})
	}
	lay := c.Layout()
	assert.Greater(t, lay.Page.Max.Y, 2*vg.Inch, "grown")
	assert.GreaterOrEqual(t, lay.Legend.Min.Y, vg.Length(0))
	assert.LessOrEqual(t, lay.Legend.Max.Y, lay.Page.Max.Y)
	assert.LessOrEqual(t, lay.Legend.Max.X, lay.Page.Max.X)
	assert.Greater(t, lay.Legend.Max.X-lay.Legend.Min.X, Text(9.5, 0, 0).Width("shardedgen/node-per-shard/strict 39"))

	var buf bytes.Buffer
	_, err := c.WriteTo(&buf)
	require.NoError(t, err)
	assert.True(t, strings.Contains(buf.String(), fmt.Sprintf(`viewBox="0 0 432 %.5g"`, lay.Page.Max.Y.Points())),
		"the page is drawn at the height laid out, %v", lay.Page.Max.Y)
}

// TestSeriesDistinct: the first 32 series differ in marker and line
// pattern (grey print), the first 16 in colour too.
func TestSeriesDistinct(t *testing.T) {
	grey := map[string]int{}
	colour := map[color.Color]int{}
	for i := range 32 {
		st := Series(i)
		k := fmt.Sprintf("%T %v", st.Glyph, st.Dashes)
		_, dup := grey[k]
		assert.False(t, dup, "series %d and %d alike in grey", i, grey[k])
		grey[k] = i
		if i < len(palette) {
			_, dup := colour[st.Color]
			assert.False(t, dup, "series %d and %d share a colour", i, colour[st.Color])
			colour[st.Color] = i
		}
	}
}

// TestLog2Axis: a labelled tick at every power of two in range and at a
// count off them with room for its label; a count too near a labelled
// tick is ticked without a label.
func TestLog2Axis(t *testing.T) {
	var a gplot.Axis
	Log2Axis(&a, 1, 12, []int{1, 3, 9, 12})
	labels := map[float64]string{}
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		labels[tk.Value] = tk.Label
	}
	assert.Equal(t, map[float64]string{1: "1", 2: "2", 4: "4", 8: "8", 3: "3", 9: "", 12: "12"}, labels)
	assert.Less(t, a.Min, 1.0)
	assert.Greater(t, a.Max, 12.0)
}

// TestSpan: a span sees only positive values.
func TestSpan(t *testing.T) {
	s := NewSpan()
	s.See(0, -3, 5, 2)
	assert.Equal(t, Span{2, 5}, s)
}
