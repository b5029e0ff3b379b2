package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/snowlab/snowlab/lab/internal/plot"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// lineChart is a small chart with one line, for the documents' tests.
func lineChart(t *testing.T) *plot.Chart {
	c := plot.New("rate", "on vm", "clients", "IDs/s", 4*vg.Inch, 3*vg.Inch)
	c.Line("one", plot.Series(0), plotter.XYs{{X: 1, Y: 10}, {X: 2, Y: 30}})
	return c
}

// An experiment's Document renders the same sections, tables, lists and
// charts as Markdown and as HTML, the HTML rendering the Markdown inline
// markup of cells and paragraphs as the Markdown file shows it, escaping
// the rest and loading nothing.
func TestDocument(t *testing.T) {
	var d report.Document
	d.Section(1, "faults run").Text("**Commit:** `abc` <b>").List("one", "two `x`")
	d.Section(2, "Scenarios").Table([]string{"Scenario", "Duplicates"}, [][]string{{"leader killed <x>", "**NO**"}}).
		Chart("rate.svg", "IDs/s against clients", lineChart(t)).
		Chart("none.svg", "a chart with nothing to draw", nil)
	d.Section(2, "How to read this").Prose("\nFirst *paragraph*,\nover two lines.\n\nSecond.\n")
	d.Host(result.Host{Hostname: "vm", LogicalCores: 2})
	var md, html strings.Builder
	require.NoError(t, d.WriteMarkdown(&md, "stem"))
	require.NoError(t, d.WriteHTML(&html))
	for _, want := range []string{"# faults run\n", "## Scenarios\n", "| leader killed <x> | **NO** |", "- two `x`\n",
		"![IDs/s against clients](stem/rate.svg)\n", "First *paragraph*,\nover two lines.\n\nSecond.\n\n## Host\n", "vm"} {
		assert.Contains(t, md.String(), want)
	}
	assert.NotContains(t, md.String(), "none.svg", "a nil chart is not linked")
	for _, want := range []string{"<title>faults run", "<h2>Scenarios</h2>", "<td>leader killed &lt;x&gt;</td>", "<td><strong>NO</strong></td>",
		"<code>x</code>", "<strong>Commit:</strong>", "<figcaption>IDs/s against clients</figcaption>", "<p>Second.</p>", "<h2>Host</h2>"} {
		assert.Contains(t, html.String(), want)
	}
	assert.Equal(t, 1, strings.Count(html.String(), "<svg "), "the chart inline")
	assert.NotContains(t, html.String(), "<b>", "paragraph text is escaped")
	assert.NotContains(t, html.String(), "<script")
}

// WriteFiles writes what a suite run writes: the JSON, the Markdown
// linking the charts under the stem's folder, the charts and the page.
func TestDocumentWriteFiles(t *testing.T) {
	var d report.Document
	d.Section(1, "btree run").Chart("size.svg", "index size", lineChart(t))
	dir := t.TempDir()
	h := &result.Header{Schema: 1, Experiment: "btree", Host: result.Host{Hostname: "vm"}, Commit: "abc1234"}
	paths, err := d.WriteFiles(dir, h, h)
	require.NoError(t, err)
	stem := resultdir.ExperimentStem(h)
	base := filepath.Join(dir, stem)
	assert.Equal(t, []string{base + ".json", base + ".md", filepath.Join(base, "size.svg"), base + ".html"}, paths)
	md, err := os.ReadFile(base + ".md")
	require.NoError(t, err)
	assert.Contains(t, string(md), "![index size]("+stem+"/size.svg)")
	svg, err := os.ReadFile(filepath.Join(base, "size.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "<svg")
	page, err := os.ReadFile(base + ".html")
	require.NoError(t, err)
	assert.Contains(t, string(page), "<svg ")
}

// WriteText writes the sections kept as a terminal shows them: the
// markup and escapes of cells, items and paragraphs gone, a link its
// text, tables in columns.
func TestDocumentWriteText(t *testing.T) {
	var d report.Document
	d.Section(1, "faults run").Text("**Commit:** `abc`")
	d.Section(2, "Scenarios").Table([]string{"Scenario", "Calls", "Duplicates"}, [][]string{
		{"leader-killed", "100", "**NO**"},
		{"[bwmarrin #53](https://example.com/53) (`x`)", "7", "a \\| b"},
	}).List("*one* \\* two").Text("a &lt;b&gt;")
	d.Host(result.Host{Hostname: "vm"})
	var b strings.Builder
	require.NoError(t, d.WriteText(&b, func(title string) bool { return title != "Host" }))
	assert.Equal(t, "== faults run ==\nCommit: abc\n\n"+
		"== Scenarios ==\n"+
		"Scenario          Calls  Duplicates\n"+
		"leader-killed     100    NO\n"+
		"bwmarrin #53 (x)  7      a | b\n"+
		"- one * two\na <b>\n\n", b.String())
}
