package snowidcli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gen -lease takes a spec, not a path: its metavar says SPEC and its text
// lists the schemes, so "-lease PATH" does not send a new user to give a
// folder where etcd: was meant.
func TestGenHelpLeaseIsASpec(t *testing.T) {
	stdout, stderr, code := snowid(t, "gen", "-h")
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "\n  -lease SPEC\n")
	for _, scheme := range []string{"dir:PATH", "etcd:"} {
		assert.Contains(t, stderr, scheme)
	}
}
