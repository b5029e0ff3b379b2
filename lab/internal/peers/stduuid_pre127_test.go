//go:build !go1.27

package peers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/snowlab/snowlab/lab/internal/peers"
)

// stdlibWant is empty before Go 1.27: the standard library has no uuid.
var stdlibWant = map[string]peerWant{}

// TestNoStdlibPeerBefore127: built with Go 1.26, the lab lists no
// standard-library peer and still builds.
func TestNoStdlibPeerBefore127(t *testing.T) {
	_, ok := peers.ByName("stdlib/uuid-v7")
	assert.False(t, ok)
}
