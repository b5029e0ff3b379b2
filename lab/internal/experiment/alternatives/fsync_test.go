package alternatives

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/pg_test_fsync-15.txt is PostgreSQL 15's pg_test_fsync -s 1 as
// it printed on a Debian VM.
func TestParseTestFsync(t *testing.T) {
	out, err := os.ReadFile("testdata/pg_test_fsync-15.txt")
	require.NoError(t, err)
	methods, err := parseTestFsync(string(out))
	require.NoError(t, err)
	var names []string
	for _, m := range methods {
		names = append(names, m.Name)
	}
	assert.Equal(t, []string{"open_datasync", "fdatasync", "fsync", "fsync_writethrough", "open_sync"}, names,
		"the one-write comparison only, in the tool's order")
	assert.Equal(t, 774.329, methods[1].OpsPerSec)
	assert.Zero(t, methods[3].OpsPerSec, "n/a on Linux")

	for _, bad := range []string{"", "Compare file sync methods using one 8kB write:\n        fdatasync   lots ops/sec\n",
		"Compare file sync methods using one 8kB write:\n        fdatasync  12 ops/min\n"} {
		_, err := parseTestFsync(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestCommitLatencyNotMeasured(t *testing.T) {
	c := measureCommitLatency(t.Context(), server{Local: false}, 1)
	assert.False(t, c.measured())
	assert.Contains(t, c.NotMeasured, "not on this machine")
	c = measureCommitLatency(t.Context(), server{Local: true}, 0)
	assert.Contains(t, c.NotMeasured, "switched off")
}
