//go:build !snowidd_faults

package daemon

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A build without the snowidd_faults tag has none of the fault-injection
// build's paths: its clock cannot be stepped nor its answers held from
// outside.
func TestNoFaultPathsInAProductionBuild(t *testing.T) {
	d := startDaemonWith(t, systemHooks(), "-lease", "static:1")
	waitFor(t, "ready", ready(t, d.url))
	for _, path := range []string{"/fault/clock?step=10s", "/fault/hold?for=1s", "/fault/held/snowlab.v1.IDService/NextIDs"} {
		resp, err := http.Post(d.url+path, "application/json", nil)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}
	assert.NotContains(t, d.log.String(), "fault-injection build")
	assert.Equal(t, 0, d.stop(t), d.log.String())
}
