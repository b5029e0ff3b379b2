package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg/draw"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/peers"
	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// svgText parses path as XML, requires the root element to be svg, and
// returns all its character data, joined by newlines.
func svgText(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	dec := xml.NewDecoder(f)
	var texts []string
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "%s is not well-formed XML", path)
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	require.Equal(t, "svg", root, "%s: root element", path)
	return strings.Join(texts, "\n")
}

func TestWriteCharts(t *testing.T) {
	run := fixture.Run()
	dir := t.TempDir()
	paths, err := newDocument(run).writeCharts(dir)
	require.NoError(t, err)
	// Eleven subjects are more than a panel draws: the saturate sweep in
	// small multiples by group, Sonyflake's defaults (25.6k/s under 4M/s
	// to 71M/s) on their own; the eight subjects whose fairness was
	// measured, and eight NextID bursts, fit one panel each. They come
	// in the order of the report's sections: the bursts' first.
	saturate := []string{"saturate-strict.svg", "saturate-not-strict.svg", "saturate-peers.svg", "saturate-far.svg"}
	names := slices.Concat([]string{"latency.svg", "makespan.svg"}, saturate, []string{"fairness.svg"})
	var want []string
	for _, n := range names {
		want = append(want, filepath.Join(dir, n))
	}
	require.Equal(t, want, paths)
	text := map[string]string{}
	for _, p := range paths {
		text[filepath.Base(p)] = svgText(t, p)
		assert.Contains(t, text[filepath.Base(p)], run.Host.CPU, "%s: title names the host", filepath.Base(p))
		assert.Contains(t, text[filepath.Base(p)], "GOMAXPROCS 8", "%s: title names GOMAXPROCS", filepath.Base(p))
	}
	for _, s := range run.Subjects {
		var in []string
		for _, n := range saturate {
			if strings.Contains(text[n], s.Name) {
				in = append(in, n)
			}
		}
		assert.Len(t, in, 1, "%s on one saturate panel", s.Name)
		if !s.Physical { // the fixture's limits have no burst
			assert.Contains(t, text["latency.svg"], s.Name)
			assert.Contains(t, text["makespan.svg"], s.Name)
		}
	}
	strict, far := text["saturate-strict.svg"], text["saturate-far.svg"]
	assert.Contains(t, strict, "Saturate, strict generators")
	assert.Contains(t, strict, "ceiling 1 node: 4.096M/s")
	assert.Contains(t, strict, "ceiling 8 nodes: 32.77M/s (shardedgen/node-per-shard/strict)")
	assert.Contains(t, text["saturate-not-strict.svg"], "limit/per-p")
	assert.Contains(t, text["saturate-peers.svg"], "bwmarrin/snowflake (peer)")
	assert.Contains(t, far, "sony/sonyflake (peer)")
	assert.Contains(t, far, "far from the rest")
	assert.Contains(t, far, "ceiling 1 node: 25.6k/s")
	for _, n := range saturate {
		assert.NotContains(t, text[n], "(log scale)", "%s: with the outlier apart, no panel spans 100x", n)
	}

	lat := text["latency.svg"]
	for _, p := range percentiles {
		assert.Contains(t, lat, p)
	}
	assert.Contains(t, lat, "1ms", "latency ticks carry units")

	mk := text["makespan.svg"]
	assert.Contains(t, mk, "mutexgen/strict · NextIDs")
	assert.Contains(t, mk, "atomicgen/strict · NextID")
	assert.Contains(t, mk, "layout floor")
	assert.Contains(t, mk, "790 ms", "the median is labelled")
}

// TestSaturatePanels: the standard suite's sixteen subjects and two
// limits on panels of at most eight, none twice, none left out.
func TestSaturatePanels(t *testing.T) {
	run := standardRun()
	specs := saturateCharts(run)
	require.Greater(t, len(specs), 1)
	seen := map[string]string{}
	for _, c := range specs {
		var buf bytes.Buffer
		_, err := c.chart.WriteTo(&buf)
		require.NoError(t, err)
		n := 0
		for _, s := range run.Subjects {
			if strings.Contains(buf.String(), ">"+legendLabel(run, s.Name)+"<") {
				assert.Empty(t, seen[s.Name], "%s on %s and %s", s.Name, seen[s.Name], c.name)
				seen[s.Name] = c.name
				n++
			}
		}
		assert.LessOrEqual(t, n, plot.MaxSeries, "%s draws %d series", c.name, n)
		assert.Positive(t, n, c.name)
	}
	assert.Len(t, seen, len(run.Subjects), "every subject drawn")
}

// TestCeilingBeneath: the strict ceilings are drawn before any series,
// so a series on its ceiling is drawn over it and shows.
func TestCeilingBeneath(t *testing.T) {
	run := fixture.Run()
	specs := saturateCharts(run)
	require.NotEmpty(t, specs)
	c := specs[0] // the strict generators: two ceilings
	require.Equal(t, "saturate-strict.svg", c.name)
	var buf bytes.Buffer
	_, err := c.chart.WriteTo(&buf)
	require.NoError(t, err)
	svg := buf.String()
	series := strings.Index(svg, fmt.Sprintf("stroke:#%02X%02X%02X", 0x1f, 0x77, 0xb4)) // mutexgen/strict's colour
	require.Positive(t, series)
	ceiling := "stroke:#808080;stroke-width:0.8"
	assert.Equal(t, 2, strings.Count(svg[:series], ceiling), "both ceilings drawn before the first series")
	assert.Equal(t, 4, strings.Count(svg, ceiling), "and once more each in the legend, after the data")
}

func TestWriteChartsNoData(t *testing.T) {
	for name, run := range map[string]*result.Run{
		"nil":         nil,
		"empty":       {},
		"no results":  {Subjects: fixture.Run().Subjects, Host: fixture.Run().Host},
		"zero values": {Saturate: []result.SaturateResult{{Subject: "x", Goroutines: 0}}, Burst: []result.BurstResult{{Subject: "x", Via: "NextID"}}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "charts")
			paths, err := newDocument(run).writeCharts(dir)
			require.NoError(t, err)
			assert.Empty(t, paths)
			_, err = os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "nothing to draw creates no directory")
		})
	}
}

func TestWriteChartsPartial(t *testing.T) {
	full := fixture.Run()

	satOnly := &result.Run{Host: full.Host, Subjects: full.Subjects, Saturate: full.Saturate}
	paths, err := newDocument(satOnly).writeCharts(t.TempDir())
	require.NoError(t, err)
	require.Len(t, paths, 5)
	for _, p := range paths[:4] {
		assert.True(t, strings.HasPrefix(filepath.Base(p), "saturate-"), p)
	}
	assert.Equal(t, "fairness.svg", filepath.Base(paths[4]))

	// Batches only: no per-call latency to draw, but makespans.
	batch := &result.Run{Host: full.Host, Subjects: full.Subjects}
	for _, b := range full.Burst {
		if b.Via == "NextIDs" {
			batch.Burst = append(batch.Burst, b)
		}
	}
	paths, err = newDocument(batch).writeCharts(t.TempDir())
	require.NoError(t, err)
	require.Len(t, paths, 1)
	assert.Equal(t, "makespan.svg", filepath.Base(paths[0]))
	mk := svgText(t, paths[0])
	assert.NotContains(t, mk, "one call per ID", "legend lists only the call styles drawn")
	assert.Contains(t, mk, "one batch per goroutine")
}

func TestWriteChartsLinear(t *testing.T) {
	// Own strict generators only: 3.9M to 32.8M/s is under 100x, so the
	// axis is linear from zero.
	full := fixture.Run()
	run := &result.Run{Host: full.Host, Subjects: full.Subjects}
	for _, r := range full.Saturate {
		if r.Subject == "atomicgen/strict" || r.Subject == "shardedgen/node-per-shard/strict" {
			run.Saturate = append(run.Saturate, r)
		}
	}
	paths, err := newDocument(run).writeCharts(t.TempDir())
	require.NoError(t, err)
	require.Len(t, paths, 2, "saturate and fairness")
	text := svgText(t, paths[0])
	assert.NotContains(t, text, "(log scale)")
	assert.Contains(t, text, "IDs per second")
	assert.NotContains(t, text, "sony/sonyflake", "only subjects with data are drawn")
	assert.NotContains(t, text, "25.6k/s", "only ceilings of drawn subjects")
}

func TestWriteChartsVaryingGoroutines(t *testing.T) {
	run := fixture.Run()
	extra := run.Burst[0]
	extra.Goroutines = 64
	run.Burst = append(run.Burst, extra)
	run.Saturate = append(run.Saturate, result.SaturateResult{Subject: "atomicgen/strict", Goroutines: 6, IDsPerSec: 4e6})
	dir := t.TempDir()
	_, err := newDocument(run).writeCharts(dir)
	require.NoError(t, err)
	assert.Contains(t, svgText(t, filepath.Join(dir, "saturate-strict.svg")), "\n6\n", "a non-power-of-two count with room gets a label")
	assert.Contains(t, svgText(t, filepath.Join(dir, "latency.svg")), "mutexgen/strict, 64 goroutines")
	assert.Contains(t, svgText(t, filepath.Join(dir, "makespan.svg")), "mutexgen/strict · NextID · 64 goroutines")
}

func TestWriteChartsError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	paths, err := newDocument(fixture.Run()).writeCharts(file)
	assert.Error(t, err, "dir is a file")
	assert.Empty(t, paths)
}

func TestChartTick(t *testing.T) {
	run := fixture.Run()
	tick := func(subject string) time.Duration {
		return tickOf(run, result.BurstResult{Subject: subject, IDs: 20_000, MinTicks: 5})
	}
	assert.Equal(t, time.Millisecond, tick("mutexgen/strict"))
	assert.Equal(t, 10*time.Millisecond, tick("sony/sonyflake"))
	assert.Equal(t, time.Millisecond, tick("google/uuid-v7"), "no tick recorded")
	assert.Equal(t, time.Millisecond, tick("unknown"), "unknown subject")
}

func TestChartStyles(t *testing.T) {
	run := fixture.Run()
	st := styles(run)
	require.Len(t, st, len(run.Subjects))
	assert.Equal(t, "bwmarrin/snowflake (peer)", legendLabel(run, "bwmarrin/snowflake"))
	assert.Equal(t, "atomicgen/strict", legendLabel(run, "atomicgen/strict"))
}

// standardRun is the fixture with every subject of the standard suite
// (snowlab's own, the physical limits and the peers: the most series and
// the longest names a default run draws) measured at 1, 2 and 4
// goroutines and in a NextID burst.
func standardRun() *result.Run {
	run := fixture.Run()
	all := append(subject.Own(1), peers.All()...)
	run.Subjects = run.Subjects[:0]
	run.Saturate, run.Burst = nil, nil
	for i, s := range all {
		run.Subjects = append(run.Subjects, result.SubjectInfo{Name: s.Name, Peer: s.Peer, Strict: s.Strict, Nodes: 1,
			CeilingIDs: 4.096e6, TickNs: 1e6})
		for _, g := range []int{1, 2, 4} {
			v := float64(1+i) * 1e6 * float64(g)
			run.Saturate = append(run.Saturate, result.SaturateResult{Subject: s.Name, Goroutines: g, IDsPerSec: v,
				Samples: []float64{v * 0.9, v, v * 1.1}})
		}
		run.Burst = append(run.Burst, result.BurstResult{Subject: s.Name, Via: "NextID", Goroutines: 32, IDs: 100_000,
			Repeats: 3, MakespanNs: []int64{int64(i+1) * 1e6, int64(i+2) * 1e6, int64(i+3) * 1e6}, MinTicks: 25,
			Latency: result.Latency{P50: 100, P90: 200, P99: 1000, P999: 5000, P9999: 9000, Max: int64(1e5 + i)}})
	}
	for _, name := range []string{subject.LimitClockCAS, subject.LimitPerP} {
		run.Subjects = append(run.Subjects, result.SubjectInfo{Name: name, Nodes: 1, Physical: true})
		for _, g := range []int{1, 2, 4} {
			run.Saturate = append(run.Saturate, result.SaturateResult{Subject: name, Goroutines: g, IDsPerSec: 5e7})
		}
	}
	return run
}

// TestChartsReadable draws the standard suite's charts and checks what
// makes a chart unreadable: two series drawn alike (in colour, or printed
// in grey), a legend entry wider than its column or a legend running off
// the page.
func TestChartsReadable(t *testing.T) {
	run := standardRun()
	require.GreaterOrEqual(t, len(run.Subjects), 16)

	st := styles(run)
	require.Len(t, st, len(run.Subjects))
	seen := map[string]string{}
	grey := map[string]string{}
	for name, s := range st {
		key := fmt.Sprint(s.Color, reflect.TypeOf(s.Glyph), s.Dashes)
		assert.Empty(t, seen[key], "%s and %s look alike", name, seen[key])
		seen[key] = name
		gkey := fmt.Sprint(reflect.TypeOf(s.Glyph), s.Dashes)
		assert.Empty(t, grey[gkey], "%s and %s look alike in grey", name, grey[gkey])
		grey[gkey] = name
	}

	legendFont := plot.Text(9.5, draw.XLeft, draw.YCenter)
	drawn := map[string]bool{}
	for _, spec := range chartsOf(run) {
		name, c := spec.name, spec.chart
		require.NotNil(t, c, name)
		lay := c.Layout()
		assert.True(t, lay.Legend.Min.X >= 0 && lay.Legend.Min.Y >= 0 &&
			lay.Legend.Max.X <= lay.Page.Max.X && lay.Legend.Max.Y <= lay.Page.Max.Y,
			"%s: legend %v outside the page %v", name, lay.Legend, lay.Page)
		var buf bytes.Buffer
		_, err := c.WriteTo(&buf)
		require.NoError(t, err)
		svg := buf.String()
		if name != "makespan.svg" { // its legend names the call styles, not subjects
			longest := ""
			for _, s := range run.Subjects {
				if l := legendLabel(run, s.Name); strings.Contains(svg, ">"+l+"<") && len(l) > len(longest) {
					longest = l
				}
			}
			assert.Greater(t, lay.Legend.Max.X-lay.Legend.Min.X, legendFont.Width(longest),
				"%s: legend column narrower than %q", name, longest)
		}
		for _, s := range run.Subjects {
			if strings.Contains(svg, s.Name) {
				drawn[strings.SplitN(name, "-", 2)[0]+" "+s.Name] = true
			}
		}
		assert.Contains(t, svg, "Arial", "%s: a fallback with the same metrics", name)
		assert.NotContains(t, svg, "font-family:Liberation Sans;", name)
	}
	for _, s := range run.Subjects {
		assert.True(t, drawn["saturate "+s.Name] || drawn["saturate.svg "+s.Name], "a saturate panel draws %s", s.Name)
		if !s.Physical {
			assert.True(t, drawn["latency "+s.Name] || drawn["latency.svg "+s.Name], "a latency panel draws %s", s.Name)
		}
	}
}
