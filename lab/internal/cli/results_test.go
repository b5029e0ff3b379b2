package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// The most the published runs may weigh: every clone carries them, and
// a suite run with its histograms compressed is a few hundred KB, so a
// file over maxResultFile is one stored in a form nothing reads (an
// array of bucket counts, raw samples) and should be compacted before
// it is committed (loadgen publish does it for histograms).
const (
	maxResultFile  = 1_000_000
	maxResultsTree = 8_000_000
)

// TestCommittedResultsSize: no file in results/ is over maxResultFile and
// the folder holds at most maxResultsTree, the lab's ignored local runs
// (results/local/) left out.
func TestCommittedResultsSize(t *testing.T) {
	root := filepath.Join("..", "..", "..", filepath.FromSlash(resultdir.Published))
	local := filepath.Join("..", "..", "..", filepath.FromSlash(resultdir.Local))
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		t.Skip("no " + resultdir.Published + "/ folder beside this module")
	}
	var total int64
	files := 0
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == local {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files++
		total += info.Size()
		assert.LessOrEqual(t, info.Size(), int64(maxResultFile), "%s is over %d bytes", p, maxResultFile)
		return nil
	}))
	require.NotZero(t, files, "no file under %s", root)
	assert.LessOrEqual(t, total, int64(maxResultsTree), "%s holds %d bytes in %d files", root, total, files)
}
