//go:build go1.27

package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListStdlibPeer: built with Go 1.27, loadgen list names the standard
// library's uuid.NewV7 among the peers.
func TestListStdlibPeer(t *testing.T) {
	code, out, _ := runArgs("list")
	require.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^stdlib/uuid-v7 +peer +borrows +no per-tick limit$`, out)
}
