//go:build !go1.27

package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListStdlibPeer: built with Go 1.26, whose standard library has no
// uuid, loadgen list names no standard-library peer and the rest is there.
func TestListStdlibPeer(t *testing.T) {
	code, out, _ := runArgs("list")
	require.Equal(t, exitOK, code)
	assert.NotContains(t, out, "stdlib/")
	assert.Contains(t, out, "google/uuid-v7")
}
