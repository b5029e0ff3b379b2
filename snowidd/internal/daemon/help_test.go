package daemon

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -lease takes a spec, not a path: its metavar says SPEC and its text
// lists every scheme snowidd opens, so "-lease PATH" does not send a new
// user to give a folder where etcd:, pg: or static: was meant.
func TestHelpLeaseIsASpec(t *testing.T) {
	var help strings.Builder
	_, err := parseOptions([]string{"-h"}, env(), &help)
	require.True(t, errors.Is(err, errHelp), "%v", err)
	assert.Contains(t, help.String(), "\n  -lease SPEC\n")
	for _, scheme := range []string{"dir:PATH", "etcd:HOST:PORT/PREFIX", "pg:DSN", "static:N"} {
		assert.Contains(t, help.String(), scheme)
	}
}
