package labsubject_test

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/lab/workload"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/labsubject"
	"github.com/snowlab/snowlab/snowidd/server"
)

// The lab's burst workload runs against a replica through each protocol
// and batch size, and its checks pass.
func TestBurstAgainstAReplica(t *testing.T) {
	srv, err := server.New(server.Config{})
	require.NoError(t, err)
	g, err := atomicgen.New(snowlab.Config{Node: 3})
	require.NoError(t, err)
	srv.Use(g, nil, 3, 1)
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Config.Protocols = server.Protocols()
	ts.Start()
	defer ts.Close()

	for _, tc := range []struct {
		p     client.Protocol
		batch int
		fill  bool
	}{
		{client.GRPC, 0, false}, {client.ConnectJSON, 0, false}, {client.GRPC, 100, false},
		{client.GRPCWeb, 10, false}, {client.Connect, 0, true},
	} {
		s, err := labsubject.Remote(ts.URL, tc.p, tc.batch, snowlab.Layout{})
		require.NoError(t, err)
		res, err := workload.Burst(s, workload.BurstConfig{IDs: 2000, Goroutines: 4, Repeats: 1, Batch: tc.fill}, nil)
		require.NoError(t, err, s.Name)
		assert.True(t, res.Check.OK(), "%s: %s", s.Name, res.Check)
		assert.Equal(t, 2000, res.Check.IDs, s.Name)
	}
	_, err = labsubject.Remote(ts.URL, client.GRPC, client.MaxBatch+1, snowlab.Layout{})
	assert.Error(t, err)
}
