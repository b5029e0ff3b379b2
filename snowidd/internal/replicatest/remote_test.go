package replicatest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/remote"
	"github.com/snowlab/snowlab/lab/workload"
	"github.com/snowlab/snowlab/snowidd/internal/replicatest"
)

// The lab's remote subject, which hand-encodes each protocol, against the
// real server: the lab's burst workload runs through every protocol, one
// ID per call and in batches, and its checks (uniqueness, each caller's
// order, the per-node ceiling) pass.
func TestLabRemoteAgainstAReplica(t *testing.T) {
	url := replicatest.Serve(t, replicatest.Static(t, snowlab.Config{Node: 3}).Handler())

	for _, p := range remote.Protocols {
		for _, batch := range []int{0, 10} {
			for _, fill := range []bool{false, true} {
				s, err := remote.Subject(url, p, batch, snowlab.Layout{})
				require.NoError(t, err)
				res, err := workload.Burst(s, workload.BurstConfig{IDs: 2000, Goroutines: 4, Repeats: 1, Batch: fill}, nil)
				require.NoError(t, err, s.Name)
				assert.True(t, res.Check.OK(), "%s (fill %v): %s", s.Name, fill, res.Check)
				assert.Equal(t, 2000, res.Check.IDs, s.Name)
			}
		}
	}
}
