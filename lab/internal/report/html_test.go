package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/result"
)

func htmlOf(t *testing.T, run *result.Run) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, writeHTML(&buf, run))
	return buf.String()
}

func TestWriteHTML(t *testing.T) {
	run := fixture.Run()
	page := htmlOf(t, run)
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	has(t, page, "<title>snowlab lab run, 2026-03-14 on lab-vm-3</title>")
	assert.Equal(t, len(chartsOf(run)), strings.Count(page, "<svg "), "every chart inline")
	assert.Equal(t, 7, len(chartsOf(run)), "four saturate panels, fairness, latency and makespan")
	assert.False(t, strings.Contains(page, "<?xml"))
	for _, s := range run.Subjects {
		has(t, page, s.Name)
	}
	for _, want := range []string{
		`<section id="host">`, `<section id="clock-audit">`, `<section id="failures">`,
		"<th>Property</th><th>Value</th>",
		"<td>Hypervisor</td><td>KVM</td>",
		"<strong>How to read this.</strong> <em>Cost per read</em>",
		"<code>6bc4800+dirty</code>",
		`see <a href="#failures">Failures</a>`,
		`<td class="wrap">UUIDv7 | 128-bit; order promised per caller</td>`,
		`<a href="index.html">`,
		"<figcaption>IDs/s against goroutines: strict generators</figcaption>",
		`<section id="summary">`,
		`<div class="table"><table>`,
	} {
		has(t, page, want)
	}
	assert.Equal(t, 7, strings.Count(page, "How to read this."), "as many notes as the Markdown")
	for _, ref := range []string{"http://", "https://", "<script", "<link", "@import", "url("} {
		assert.False(t, strings.Contains(page, ref), "self-contained: %q", ref)
	}
}

// A page's charts name no font: their text inherits the body's face
// stack, the one an SVG file names on every text element.
func TestWriteHTMLChartsInheritTheFont(t *testing.T) {
	page := htmlOf(t, fixture.Run())
	require.Contains(t, page, "<text ")
	assert.NotContains(t, page, "font-variant:normal", "a chart's text still names its font")
	assert.Contains(t, page, `body { font-family: "Liberation Sans", Arimo, Arial, Helvetica, sans-serif;`)
	assert.Contains(t, string(inheritedFont), "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;",
		"the stack removed is the page's")
	var file bytes.Buffer
	_, err := chartsOf(fixture.Run())[0].chart.WriteTo(&file)
	require.NoError(t, err)
	assert.Contains(t, file.String(), string(inheritedFont), "an SVG file keeps naming it")
}

func TestWriteHTMLMinimal(t *testing.T) {
	page := htmlOf(t, nil)
	has(t, page, "No run.")
	assert.False(t, strings.Contains(page, "<svg"))
	page = htmlOf(t, &result.Run{})
	has(t, page, "every correctness check passed")
	assert.False(t, strings.Contains(page, "<svg"))
}

func TestWriteHTMLEscapes(t *testing.T) {
	run := fixture.Run()
	run.Host.Hostname = `<script>alert("x")</script>`
	run.Failures = []string{"a <b> & *c*"}
	page := htmlOf(t, run)
	assert.False(t, strings.Contains(page, "<script>"))
	has(t, page, "&lt;script&gt;")
	has(t, page, "<li>a &lt;b&gt; &amp; *c*</li>", "failures escaped, not read as markup")
}

func TestInlineHTML(t *testing.T) {
	for in, want := range map[string]string{
		"plain & <b>":                     "plain &amp; &lt;b&gt;",
		"**bold** and *em*":               "<strong>bold</strong> and <em>em</em>",
		"``a`b`` and `x<y`":               "<code>a`b</code> and <code>x&lt;y</code>",
		"see [Failures](#failures).":      `see <a href="#failures">Failures</a>.`,
		"[out](https://example.com)":      "out",
		`a \| b \* c`:                     "a | b * c",
		"&lt;tag&gt;":                     "&lt;tag&gt;",
		"*unclosed":                       "<em>unclosed</em>",
		"`unclosed":                       "`unclosed",
		"[no link":                        "[no link",
		"UUIDv7 — 128-bit · ≥10s":         "UUIDv7 — 128-bit · ≥10s",
		"[a **b**](20260314/latency.svg)": `<a href="20260314/latency.svg">a <strong>b</strong></a>`,
	} {
		assert.Equal(t, want, string(inlineHTML(in)), "%q", in)
	}
}
