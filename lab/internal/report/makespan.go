package report

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// Colours of the makespan bars by call style.
var (
	viaColor = map[string]color.Color{
		"NextID":  color.RGBA{0x4c, 0x78, 0xa8, 0xff},
		"NextIDs": color.RGBA{0xf5, 0x85, 0x18, 0xff},
	}
	otherVia = color.RGBA{0x8c, 0x8c, 0x8c, 0xff}
	// callStyles are the call styles viaColor knows, in the charts' order.
	callStyles = []string{"NextID", "NextIDs"}
)

// tickOf is the tick length of b's subject, as the run recorded it; a
// subject without a tick (UUID, ULID) has no floor to draw and gets 1 ms.
func tickOf(run *result.Run, b result.BurstResult) time.Duration {
	if info, ok := subjectInfo(run, b.Subject); ok && info.TickNs > 0 {
		return time.Duration(info.TickNs)
	}
	return time.Millisecond
}

// makespanChart plots each burst's makespan as a horizontal bar.
func makespanChart(run *result.Run) *plot.Chart {
	var bursts []result.BurstResult
	for _, b := range run.Burst {
		if len(b.MakespanNs) > 0 {
			bursts = append(bursts, b)
		}
	}
	if len(bursts) == 0 {
		return nil
	}
	sortBursts(run, bursts)
	shape, manyG := burstShape(bursts)
	rows, labels, x := makespanRows(run, bursts, manyG)
	anyFloor := slices.ContainsFunc(bursts, func(b result.BurstResult) bool { return b.MinTicks > 0 })
	what := "Burst makespan: median bar, min–max whisker"
	if anyFloor {
		what += ", layout floor"
	}
	n := len(bursts)
	h := max(3.2*vg.Inch, 1.6*vg.Inch+vg.Length(n)*0.3*vg.Inch)
	d := newChart(run, what+shape, "makespan, ms", "", 10*vg.Inch, h)
	p := d.P
	g := plot.Grid()
	g.Horizontal.Color = nil
	g.Vertical.Color = color.Gray{0xd8}
	p.Add(g)
	logX := plot.Scale(&p.X, &d.XLabel, x.Lo, x.Hi, units.Count, false)
	if logX {
		p.X.Max *= 2.5 // room for the value labels
	} else {
		p.X.Max = x.Hi * 1.16
	}
	p.Add(plot.Bars{Rows: rows, Log: logX, Label: func(ms float64) string { return units.Count(ms) + " ms" }})
	p.NominalY(labels...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	makespanLegend(d, bursts, anyFloor)
	return d
}

// sortBursts puts bursts in the order the charts list them: by subject
// (subjectOrder), then NextID before NextIDs, then by goroutines.
func sortBursts(run *result.Run, bursts []result.BurstResult) {
	present := make(map[string]bool)
	for _, b := range bursts {
		present[b.Subject] = true
	}
	order := make(map[string]int)
	for i, s := range subjectOrder(run, present) {
		order[s] = i
	}
	viaRank := func(v string) int {
		if i := slices.Index(callStyles, v); i >= 0 {
			return i
		}
		return len(callStyles)
	}
	slices.SortStableFunc(bursts, func(a, b result.BurstResult) int {
		return cmp.Or(order[a.Subject]-order[b.Subject], viaRank(a.Via)-viaRank(b.Via), a.Goroutines-b.Goroutines)
	})
}

// burstShape is what every one of bursts shares, for a chart's title:
// " (8 goroutines, 20,000 IDs × 5 repeats)", " (8 goroutines)" or "";
// manyG is whether they ran at more than one goroutine count.
func burstShape(bursts []result.BurstResult) (shape string, manyG bool) {
	gs := make(map[int]bool)
	ids := make(map[[2]int]bool)
	for _, b := range bursts {
		gs[b.Goroutines] = true
		ids[[2]int{b.IDs, b.Repeats}] = true
	}
	if len(gs) > 1 {
		return "", true
	}
	shape = fmt.Sprintf(" (%d goroutines", bursts[0].Goroutines)
	if len(ids) == 1 {
		shape += fmt.Sprintf(", %s IDs × %d repeats", units.Thousands(bursts[0].IDs), bursts[0].Repeats)
	}
	return shape + ")", false
}

// makespanRows are the bars of bursts, in milliseconds, and their labels
// (naming the goroutines when manyG), from the bottom row up, and the span
// of milliseconds they cover.
func makespanRows(run *result.Run, bursts []result.BurstResult, manyG bool) ([]plot.Bar, []string, plot.Span) {
	n := len(bursts)
	rows := make([]plot.Bar, n)
	labels := make([]string, n)
	x := plot.NewSpan()
	for i, b := range bursts {
		lo, med, hi := stats.Spread(b.MakespanNs)
		r := plot.Bar{Lo: lo / 1e6, Med: med / 1e6, Hi: hi / 1e6, Color: otherVia}
		if c, ok := viaColor[b.Via]; ok {
			r.Color = c
		}
		x.See(r.Lo, r.Med, r.Hi)
		if b.MinTicks > 0 {
			tick := float64(tickOf(run, b)) / 1e6
			r.FloorLo, r.FloorHi = float64(b.MinTicks-1)*tick, float64(b.MinTicks)*tick
			x.See(r.FloorLo, r.FloorHi)
		}
		// Row 0 is at the bottom: the first burst goes on top.
		rows[n-1-i] = r
		label := b.Subject + " · " + b.Via
		if manyG {
			label += fmt.Sprintf(" · %d goroutines", b.Goroutines)
		}
		labels[n-1-i] = label
	}
	return rows, labels, x
}

// makespanLegend explains the call styles the bars are drawn in, the
// whisker and the floor.
func makespanLegend(d *plot.Chart, bursts []result.BurstResult, anyFloor bool) {
	for _, via := range callStyles {
		if slices.ContainsFunc(bursts, func(b result.BurstResult) bool { return b.Via == via }) {
			what := "NextID: one call per ID"
			if via == "NextIDs" {
				what = "NextIDs: one batch per goroutine"
			}
			d.Add(what, plot.Swatch{Color: viaColor[via]})
		}
	}
	if slices.ContainsFunc(bursts, func(b result.BurstResult) bool { return viaColor[b.Via] == nil }) {
		d.Add("other call style", plot.Swatch{Color: otherVia})
	}
	d.Add("min–max of repeats", plot.WhiskerThumb{})
	if anyFloor {
		d.Add("layout floor: floor ticks × tick length", plot.FloorThumb{})
		d.Add("within one tick of the floor", plot.FloorThumb{Band: true})
	}
}
