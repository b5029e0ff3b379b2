package report_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/report"
	"github.com/snowlab/snowlab/lab/host"
)

// An experiment's Document renders the same sections, tables and lists as
// Markdown and as HTML, the HTML escaping what it must and loading
// nothing.
func TestDocument(t *testing.T) {
	var d report.Document
	d.Section(1, "faults run").Text("**Commit:** `abc` <b>").List("one", "two `x`")
	d.Section(2, "Scenarios").Table([]string{"Scenario", "Duplicates"}, [][]string{{"leader killed <x>", "0"}})
	d.Host(host.Fingerprint{Hostname: "vm", LogicalCores: 2})
	var md, html strings.Builder
	require.NoError(t, d.WriteMarkdown(&md))
	require.NoError(t, d.WriteHTML(&html))
	for _, want := range []string{"# faults run\n", "## Scenarios\n", "| leader killed <x> | 0 |", "- two `x`\n", "## Host\n", "vm"} {
		assert.Contains(t, md.String(), want)
	}
	for _, want := range []string{"<title>faults run", "<h2>Scenarios</h2>", "<td>leader killed &lt;x&gt;</td>", "<code>x</code>", "<strong>Commit:</strong>", "<h2>Host</h2>"} {
		assert.Contains(t, html.String(), want)
	}
	assert.NotContains(t, html.String(), "<b>", "paragraph text is escaped")
	assert.NotContains(t, html.String(), "<script")
}
