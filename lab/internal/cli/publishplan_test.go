package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
)

// schema1 is a schema-1 run written into a folder of its own.
func schema1(t *testing.T, extra string) string {
	path, _ := schema1Run(t, t.TempDir(), extra)
	return path
}

// publishedTree is every file under dir, by path relative to it, with its bytes.
func publishedTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files[rel] = string(data)
		return err
	}))
	return files
}

// publishWrote is the paths out says were written, the history page's
// ("wrote PAGE (N runs)") apart.
func publishWrote(t *testing.T, out string) (paths []string, index string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		path, ok := strings.CutPrefix(line, "wrote ")
		require.True(t, ok, line)
		if page, runs, ok := strings.Cut(path, " ("); ok && strings.HasSuffix(runs, " runs)") {
			index = page
			continue
		}
		paths = append(paths, path)
	}
	return paths, index
}

// TestPublishIntoCopies: a run of this lab is copied as it is, byte for byte,
// with its Markdown, HTML page and charts' folder, each file said, and
// the history page refreshed; a field this lab does not read is kept,
// since nothing is rewritten.
func TestPublishIntoCopies(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "results")
	run := fixture.Run()
	_, err := report.WriteFiles(src, run)
	require.NoError(t, err)
	path := filepath.Join(src, resultdir.Stem(run)+".json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, bytes.Replace(data, []byte("{"), []byte(`{"tuning":{"x":1},`), 1), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, resultdir.Stem(run)+".html"), []byte("<p>page</p>"), 0o644))
	want := publishedTree(t, src)
	require.Contains(t, want, resultdir.Stem(run)+".md")
	require.Contains(t, want, resultdir.Stem(run)+".html")

	p, err := preparePublish([]string{path})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, p.into(dst, &out))

	got := publishedTree(t, dst)
	index := got[report.IndexName]
	assert.NotEmpty(t, index)
	delete(got, report.IndexName)
	assert.Equal(t, want, got)
	paths, indexPath := publishWrote(t, out.String())
	assert.Len(t, paths, len(want))
	for _, p := range paths {
		assert.FileExists(t, p)
	}
	assert.Equal(t, filepath.Join(dst, report.IndexName), indexPath)
	assert.Contains(t, out.String(), "(1 runs)\n")
}

// TestPublishIntoCompacts: a schema-1 run's histograms are written compressed,
// a fraction of the size, and read back with the same buckets.
func TestPublishIntoCompacts(t *testing.T) {
	path := schema1(t, "")
	dst := t.TempDir()
	p, err := preparePublish([]string{path})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, p.into(dst, &out))
	paths, _ := publishWrote(t, out.String())
	published := filepath.Join(dst, filepath.Base(path))
	assert.Equal(t, []string{published}, paths)

	before, err := os.Stat(path)
	require.NoError(t, err)
	after, err := os.Stat(published)
	require.NoError(t, err)
	assert.Less(t, after.Size()*4, before.Size())

	orig, err := result.Read(path)
	require.NoError(t, err)
	back, err := result.Read(published)
	require.NoError(t, err)
	assert.Equal(t, 1, back.Schema, "the schema is left as written")
	assert.Equal(t, orig.Host, back.Host)
	want, err := workload.Histogram(orig.Steady[0].Latency.Hist)
	require.NoError(t, err)
	for _, got := range []result.Latency{back.Saturate[0].Latency, back.Steady[0].Latency} {
		assert.Equal(t, result.HistEncoding, got.Hist.Encoding)
		h, err := workload.Histogram(got.Hist)
		require.NoError(t, err)
		assert.Equal(t, want.Export().Counts, h.Export().Counts)
	}
	// The file named is left as it is.
	again, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, before.Size(), again.Size())
}

// TestPublishPrepareRefuses: a file that is not a result, or a run to compact
// that holds a field this lab does not know (which rewriting would
// drop), is refused in one line naming it, before anything is copied.
func TestPublishPrepareRefuses(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	require.NoError(t, os.WriteFile(garbage, []byte("not json"), 0o644))
	unknown := schema1(t, `"tuning":{"x":1}`)
	bad := filepath.Join(dir, "bad-hist.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"schema":1,"steady":[{"subject":"a","latency":{"hist":{"lowest_trackable_value":0,"highest_trackable_value":0,"significant_figures":0,"counts":[1]}}}]}`), 0o644))
	missing := filepath.Join(dir, "missing.json")
	good := schema1(t, "")
	for _, tt := range []struct {
		name string
		runs []string
		want []string
	}{
		{"missing", []string{missing}, []string{missing}},
		{"not JSON", []string{garbage}, []string{garbage, "not a lab result"}},
		{"unknown field", []string{unknown}, []string{unknown, "need compacting", `unknown field "tuning"`}},
		{"unknown field after a good run", []string{good, unknown}, []string{unknown, "tuning"}},
		{"histogram that does not read", []string{bad}, []string{bad, "unreadable histogram"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := preparePublish(tt.runs)
			require.Error(t, err)
			assert.Equal(t, publishPlan{}, p)
			assert.NotContains(t, err.Error(), "\n")
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
	_, err := preparePublish([]string{bad})
	assert.ErrorIs(t, err, workload.ErrHist, "the histogram's error is kept")
}

// TestPublishPrepareNewest: with no run named, the newest in the local folder
// is published; with none there, nothing is, and the error says how to
// make one.
func TestPublishPrepareNewest(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := preparePublish(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nothing to publish: ")
	assert.Contains(t, err.Error(), "make lab")

	local := resultdir.DefaultOut()
	require.NoError(t, os.MkdirAll(local, 0o755))
	older := fixture.Run()
	newer := fixture.Run()
	newer.Started = older.Started.Add(time.Hour)
	for _, run := range []*result.Run{older, newer} {
		require.NoError(t, resultdir.WriteJSON(filepath.Join(local, resultdir.Stem(run)+".json"), run))
	}
	p, err := preparePublish(nil)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, p.into(resultdir.Published, &out))
	paths, _ := publishWrote(t, out.String())
	assert.Equal(t, []string{filepath.Join(resultdir.Published, resultdir.Stem(newer)+".json")}, paths)
	assert.NoFileExists(t, filepath.Join(resultdir.Published, resultdir.Stem(older)+".json"))
}

// TestPublishIntoSameFolder: a run already in the folder is left as it is,
// and only the history page is written; an experiment's result is
// copied as it is.
func TestPublishIntoSameFolder(t *testing.T) {
	dir := t.TempDir()
	run := fixture.Run()
	path := filepath.Join(dir, resultdir.Stem(run)+".json")
	require.NoError(t, resultdir.WriteJSON(path, run))
	experiment := filepath.Join(t.TempDir(), "2026-03-14-btree.json")
	require.NoError(t, os.WriteFile(experiment, []byte(`{"schema":1,"experiment":"btree"}`), 0o644))

	p, err := preparePublish([]string{path, experiment})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, p.into(dir, &out))
	paths, index := publishWrote(t, out.String())
	assert.Equal(t, []string{filepath.Join(dir, filepath.Base(experiment))}, paths)
	assert.Equal(t, filepath.Join(dir, report.IndexName), index)
	got, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"schema":1,"experiment":"btree"}`, string(got))
	assert.Contains(t, out.String(), "(1 runs)\n", "the experiment is no suite run")
}

// TestPublishIntoUnwritable: a folder that cannot be made is an error, and
// nothing is said to be written.
func TestPublishIntoUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	path := filepath.Join(t.TempDir(), resultdir.Stem(fixture.Run())+".json")
	require.NoError(t, resultdir.WriteJSON(path, fixture.Run()))
	p, err := preparePublish([]string{path})
	require.NoError(t, err)
	var out bytes.Buffer
	err = p.into(filepath.Join(file, "results"), &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a directory")
	assert.Empty(t, out.String())
}
