package daemon

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// A replica with another layout than the one its lease store records
// (a rolling change of -layout on one -lease spec: node 0 of 41/8/14
// mints the IDs of 41/10/12's nodes 0..3, held by the replicas still
// running) stops at start, exit 2, saying so once: asking again cannot
// mend it. The replicas of the store's layout go on.
func TestLayoutOtherThanTheStoresRefused(t *testing.T) {
	dir := t.TempDir()
	r0 := startDaemon(t, "-lease", "dir:"+dir)
	waitFor(t, "the replica of 41/10/12 ready", ready(t, r0.url))

	var log strings.Builder
	code := run(testend.Context(t), []string{"-listen", "127.0.0.1:0", "-lease", "dir:" + dir, "-layout", "41/8/14"}, noEnv, &log, hooks{readKernel: clocksrc.ReadKernel})
	assert.Equal(t, exitUsage, code, log.String())
	assert.Contains(t, log.String(), "the lease store serves another layout")
	assert.Contains(t, log.String(), "records layout 41/10/12,1ms,2024-01-01T00:00:00Z, the holder's is 41/8/14,1ms,2024-01-01T00:00:00Z")
	assert.Equal(t, 1, strings.Count(log.String(), "msg=\"the lease store serves another layout"), "asked once, not retried:\n%s", log.String())
	require.Equal(t, 0, r0.stop(t), r0.log.String())
}
