package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
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

func TestUseLog(t *testing.T) {
	assert.False(t, useLog(1e6, 50e6))
	assert.False(t, useLog(1, 100))
	assert.True(t, useLog(1, 100.1))
	assert.True(t, useLog(25_600, 48e6))
	assert.False(t, useLog(0, 1e6), "zero cannot go on a log axis")
}

func TestLogBounds(t *testing.T) {
	for _, c := range []struct{ lo, hi, wlo, whi float64 }{
		{25_400, 48.2e6, 20_000, 50e6},
		{28, 41e6, 20, 50e6},
		{100, 1000, 100, 1000},
		{3, 3, 2, 5},
		{0.09, 795, 0.05, 1000},
	} {
		lo, hi := logBounds(c.lo, c.hi)
		assert.InDelta(t, c.wlo, lo, c.wlo*1e-9, "lo of %v", c)
		assert.InDelta(t, c.whi, hi, c.whi*1e-9, "hi of %v", c)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logTicks{si}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"20k", "50k", "100k", "200k", "500k", "1M", "2M", "5M", "10M", "20M", "50M"},
		labels(20_000, 50e6), "few decades: 1-2-5")
	assert.Equal(t, []string{"100", "1k", "10k", "100k", "1M", "10M"},
		labels(20, 50e6), "many decades: powers of ten")
	assert.Empty(t, (logTicks{si}).Ticks(0, 1))
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

// TestSave: a chart is saved as an SVG file.
func TestSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.svg")
	require.NoError(t, New("t", "s", "x", "y", 4*vg.Inch, 3*vg.Inch).Save(path))
	svg, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(svg), "<svg")
	assert.Error(t, New("t", "s", "x", "y", 4*vg.Inch, 3*vg.Inch).Save(filepath.Join(path, "b.svg")), "a file is no folder")
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
