package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
)

// TestPublishCompacts: a schema-1 run is published with its histograms
// compressed, a fraction of its size, and reads back the same: host,
// summaries and every bucket.
func TestPublishCompacts(t *testing.T) {
	t.Chdir(t.TempDir())
	path, lat := schema1Run(t, resultdir.DefaultOut(), "")
	code, out, errs := runArgs("publish", path)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "(1 runs)")

	published := filepath.Join(resultdir.Published, filepath.Base(path))
	before, err := os.Stat(path)
	require.NoError(t, err)
	after, err := os.Stat(published)
	require.NoError(t, err)
	t.Logf("%d bytes published from %d", after.Size(), before.Size())
	assert.Less(t, after.Size()*4, before.Size())

	orig, err := result.Read(path)
	require.NoError(t, err)
	back, err := result.Read(published)
	require.NoError(t, err)
	assert.Equal(t, 1, back.Schema)
	assert.Equal(t, orig.Host, back.Host)
	want, err := workload.Histogram(orig.Steady[0].Latency.Hist)
	require.NoError(t, err)
	for _, got := range []result.Latency{back.Saturate[0].Latency, back.Steady[0].Latency} {
		assert.Equal(t, result.HistEncoding, got.Hist.Encoding)
		assert.Equal(t, lat.P99, got.P99)
		h, err := workload.Histogram(got.Hist)
		require.NoError(t, err)
		assert.Equal(t, want.Export().Counts, h.Export().Counts)
	}
}

// TestPublishRefusesUnknownFields: a run to compact that holds a field
// this lab does not know is refused in one line naming it, and nothing
// is published, rather than rewritten without the field.
func TestPublishRefusesUnknownFields(t *testing.T) {
	t.Chdir(t.TempDir())
	path, _ := schema1Run(t, resultdir.DefaultOut(), `"tuning":{"x":1}`)
	code, _, errs := runArgs("publish", path)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, filepath.Base(path))
	assert.Contains(t, errs, "tuning")
	assert.NoFileExists(t, filepath.Join(resultdir.Published, filepath.Base(path)))
}
