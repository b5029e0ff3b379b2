package resultdir

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
)

// A folder names its newest run by name (a UTC timestamp first), a file
// itself; an empty folder has none.
func TestReadBaseline(t *testing.T) {
	dir := t.TempDir()
	older := filepath.Join(dir, "20260101T000000Z-vm-aaaaaaa.json")
	newer := filepath.Join(dir, "20260102T000000Z-vm-bbbbbbb.json")
	for _, f := range []string{newer, older} {
		run := fixture.Run()
		run.Commit = filepath.Base(f)
		require.NoError(t, WriteJSON(f, run))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.md"), nil, 0o644))
	empty := t.TempDir()
	for _, tc := range []struct {
		spec, want string
		err        error
	}{
		{dir, newer, nil},
		{older, older, nil},
		{empty, "", fs.ErrNotExist},
		{filepath.Join(dir, "missing"), "", fs.ErrNotExist},
	} {
		got, err := ReadBaseline(tc.spec)
		if tc.err != nil {
			assert.ErrorIs(t, err, tc.err, tc.spec)
			continue
		}
		require.NoError(t, err, tc.spec)
		assert.Equal(t, filepath.Base(tc.want), got.Commit, tc.spec)
	}
}

// Only the local folder's page shows the published runs too.
func TestHistorySources(t *testing.T) {
	dir := t.TempDir()
	assert.Equal(t, []string{dir}, HistorySources(dir))
	t.Chdir(t.TempDir())
	assert.Equal(t, []string{DefaultOut()}, HistorySources(DefaultOut()), "no published folder here")
	require.NoError(t, os.MkdirAll(Published, 0o755))
	local := DefaultOut() + string(filepath.Separator)
	assert.Equal(t, []string{Published, local}, HistorySources(local), "the folder as named")
}
