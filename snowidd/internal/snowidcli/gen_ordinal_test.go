package snowidcli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// TestGenPreferOrdinal: gen -prefer-ordinal asks the lease store for the
// pod's ordinal ($POD_INDEX here) first, as snowidd does; a second pod
// with that ordinal, while the first holds it, gets another node id; no
// preference unless asked; refused without a store, or with an ordinal
// that is no number or that the layout cannot hold.
func TestGenPreferOrdinal(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(nodeid.PodIndexEnv, "5")
	stdout, stderr, code := snowid(t, "gen", "-lease", "dir:"+dir, "-prefer-ordinal")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, 5, snowlab.DefaultLayout.Decode(mustParse(t, stdout)).Node)
	oneErrorLine(t, stderr, "node 5, leased from dir:"+dir)

	stdout, stderr, code = snowid(t, "gen", "-lease", "dir:"+dir)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, 0, snowlab.DefaultLayout.Decode(mustParse(t, stdout)).Node, "no preference unless asked")

	// Two pods with one ordinal (a force-deleted pod still running): the
	// store gives the second another node id.
	first, err := nodeid.Acquire(context.Background(), nodeid.Dir(dir), nodeid.Options{Preferred: true, Prefer: 5})
	require.NoError(t, err)
	defer first.Release(context.Background())
	held, _ := first.Nodes()
	require.Equal(t, 5, held)
	stdout, stderr, code = snowid(t, "gen", "-lease", "dir:"+dir, "-prefer-ordinal")
	require.Equal(t, exitOK, code, stderr)
	assert.NotEqual(t, 5, snowlab.DefaultLayout.Decode(mustParse(t, stdout)).Node, "node id 5 is held")

	for _, c := range []struct {
		name, pod string
		args      []string
		want      []string
	}{
		{"without a store", "5", []string{"-prefer-ordinal"}, []string{"-prefer-ordinal needs -lease", "#54368"}},
		{"with static:N", "5", []string{"-lease", "static:3", "-prefer-ordinal"}, []string{"-prefer-ordinal needs -lease"}},
		{"an ordinal that is no number", "x", []string{"-lease", "dir:" + dir, "-prefer-ordinal"}, []string{"-prefer-ordinal", `"x"`}},
		{"past the layout", "1024", []string{"-lease", "dir:" + dir, "-prefer-ordinal"}, []string{"-prefer-ordinal", "1024"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(nodeid.PodIndexEnv, c.pod)
			stdout, stderr, code := snowid(t, append([]string{"gen"}, c.args...)...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			oneErrorLine(t, stderr, c.want...)
		})
	}
}
