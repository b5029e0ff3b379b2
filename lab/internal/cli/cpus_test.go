package cli

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/host"
)

// TestBindProcs: GOMAXPROCS is set for the run and put back by restore;
// 0 with no CPUs leaves it.
func TestBindProcs(t *testing.T) {
	was := runtime.GOMAXPROCS(0)
	restore, err := bindCPUs("", 1)
	require.NoError(t, err)
	assert.Equal(t, 1, runtime.GOMAXPROCS(0))
	restore()
	assert.Equal(t, was, runtime.GOMAXPROCS(0))

	restore, err = bindCPUs("", 0)
	require.NoError(t, err)
	assert.Equal(t, was, runtime.GOMAXPROCS(0))
	restore()
}

// TestBindRefuses: a list that does not parse is an error naming the
// flag and the value, and leaves GOMAXPROCS as it was.
func TestBindRefuses(t *testing.T) {
	was := runtime.GOMAXPROCS(0)
	for _, bad := range []string{"x", "3-1", "0,,1"} {
		_, err := bindCPUs(bad, 1)
		assert.ErrorContains(t, err, `-cpus "`+bad+`"`)
		assert.Equal(t, was, runtime.GOMAXPROCS(0), bad)
	}
}

// TestBindCPUs: on Linux the process is held to the CPUs named, GOMAXPROCS
// follows their count, and restore gives back the affinity it had.
func TestBindCPUs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU affinity is set on Linux only")
	}
	before := host.Affinity()
	require.NotEmpty(t, before)
	was := runtime.GOMAXPROCS(0)
	restore, err := bindCPUs("0", 0)
	require.NoError(t, err)
	assert.Equal(t, []int{0}, host.Affinity())
	assert.Equal(t, 1, runtime.GOMAXPROCS(0))
	restore()
	assert.Equal(t, before, host.Affinity())
	assert.Equal(t, was, runtime.GOMAXPROCS(0))
}
