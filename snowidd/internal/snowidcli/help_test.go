package snowidcli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// gen -lease takes a spec, not a path: its metavar says SPEC and its text
// lists the schemes, so "-lease PATH" does not send a new user to give a
// folder where etcd: was meant.
func TestGenHelpLeaseIsASpec(t *testing.T) {
	var out, errs bytes.Buffer
	code := Run([]string{"gen", "-h"}, &out, &errs, leasespec.Openers(0, nil))
	stdout, stderr := out.String(), errs.String()
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "\n  -lease SPEC\n")
	for _, scheme := range []string{"dir:PATH", "etcd:"} {
		assert.Contains(t, stderr, scheme)
	}
}
