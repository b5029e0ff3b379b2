package host

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartOn: the child runs on the CPU it was started on, and this
// process keeps its own binding.
func TestStartOn(t *testing.T) {
	was := Affinity()
	require.NotEmpty(t, was)
	cpu := was[len(was)-1]
	cmd := exec.Command("/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	var out strings.Builder
	cmd.Stdout = &out
	require.NoError(t, StartOn(cmd, []int{cpu}))
	require.NoError(t, cmd.Wait())
	_, list, ok := strings.Cut(out.String(), ":")
	require.True(t, ok, "%q", out.String())
	got, err := ParseCPUList(strings.TrimSpace(list))
	require.NoError(t, err)
	assert.Equal(t, []int{cpu}, got)
	assert.Equal(t, was, Affinity(), "this process's binding changed")

	assert.ErrorContains(t, StartOn(exec.Command("/bin/true"), []int{-1}), "CPU -1")
	assert.Error(t, StartOn(exec.Command("/bin/true"), nil))
}
