package labsubject_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/workload"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/internal/replicatest"
	"github.com/snowlab/snowlab/snowidd/labsubject"
)

// The lab's burst workload runs against a replica through each protocol
// and batch size, and its checks pass.
func TestBurstAgainstAReplica(t *testing.T) {
	url := replicatest.Serve(t, replicatest.Static(t, snowlab.Config{Node: 3}).Handler())

	for _, tc := range []struct {
		p     client.Protocol
		batch int
		fill  bool
	}{
		{client.GRPC, 0, false}, {client.ConnectJSON, 0, false}, {client.GRPC, 100, false},
		{client.GRPCWeb, 10, false}, {client.Connect, 0, true},
	} {
		s, err := labsubject.Remote(url, tc.p, tc.batch, snowlab.Layout{})
		require.NoError(t, err)
		res, err := workload.Burst(s, workload.BurstConfig{IDs: 2000, Goroutines: 4, Repeats: 1, Batch: tc.fill}, nil)
		require.NoError(t, err, s.Name)
		assert.True(t, res.Check.OK(), "%s: %s", s.Name, res.Check)
		assert.Equal(t, 2000, res.Check.IDs, s.Name)
	}
	_, err := labsubject.Remote(url, client.GRPC, client.MaxBatch+1, snowlab.Layout{})
	assert.Error(t, err)
}
